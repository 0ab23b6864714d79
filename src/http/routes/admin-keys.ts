// /v2/admin/developer-keys: create, list, deactivate, rename, limit and scope an organization's developer keys.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { ApiKey } from '../../accounts/accounts-service.js';
import { authOf } from '../plugins/auth.js';
import { AnyObjectBody, errorResponses } from '../schemas/common.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ApiKeyRecord = Type.Object({
  key_id: Type.String(),
  label: Type.String(),
  creation_time: Type.String(),
  deactivated_time: Nullable(Type.String()),
  is_deactivated: Type.Boolean(),
  usage_limits: Type.Object({
    characters: Nullable(Type.Integer()),
    speech_to_text_milliseconds: Nullable(Type.Integer()),
  }),
  /** Tolk extension: the endpoint groups the key may use; null = all. */
  scopes: Nullable(Type.Array(Type.String())),
  /** Only in the create response: the secret, shown once. */
  key: Type.Optional(Type.String()),
});

export function keyRecord(key: ApiKey) {
  return {
    key_id: key.id,
    label: key.label,
    creation_time: new Date(key.createdAt).toISOString(),
    deactivated_time: key.deactivatedAt === null ? null : new Date(key.deactivatedAt).toISOString(),
    is_deactivated: key.deactivatedAt !== null,
    usage_limits: { characters: key.characterLimit, speech_to_text_milliseconds: key.speechToTextMsLimit },
    scopes: key.scopes === null ? null : [...key.scopes],
  };
}

export async function adminKeyRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const keys = services.adminKeys;
  const config = { auth: 'admin' as const };
  const one = { body: Type.Optional(AnyObjectBody), response: { 200: ApiKeyRecord, ...errorResponses } };
  const account = (request: FastifyRequest) => authOf(request).account;

  app.post('/v2/admin/developer-keys', { config, schema: one }, async (request) => {
    const { key, secret } = await keys.create(account(request), request.body);
    return { ...keyRecord(key), key: secret };
  });
  app.get(
    '/v2/admin/developer-keys',
    { config, schema: { response: { 200: Type.Array(ApiKeyRecord), ...errorResponses } } },
    async (request) => (await keys.list(account(request))).map(keyRecord),
  );
  app.put('/v2/admin/developer-keys/deactivate', { config, schema: one }, async (request) =>
    keyRecord(await keys.deactivate(account(request), request.body)),
  );
  app.put('/v2/admin/developer-keys/label', { config, schema: one }, async (request) =>
    keyRecord(await keys.rename(account(request), request.body)),
  );
  app.put('/v2/admin/developer-keys/limits', { config, schema: one }, async (request) =>
    keyRecord(await keys.setLimits(account(request), request.body)),
  );
  app.put('/v2/admin/developer-keys/scopes', { config, schema: one }, async (request) =>
    keyRecord(await keys.setScopes(account(request), request.body)),
  );
}
