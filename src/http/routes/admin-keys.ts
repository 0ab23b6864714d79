// /v2/admin/developer-keys: create, list, deactivate, rename, limit and scope an organization's developer keys.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { ApiKey } from '../../accounts/accounts-service.js';
import { authOf } from '../plugins/auth.js';
import { JSON_OR_FORM, errorResponses, handlerChecked } from '../schemas/common.js';
import { SCOPES } from '../../admin/scopes.js';
import { MAX_LABEL_LENGTH, parseCreateBody, parseKeyBody, parseLabelBody, parseLimitsBody, parseScopesBody } from './admin-key-params.js';

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
  /**
   * Tolk extension, only in the list: what the key used in the account's current billing period, the figures its
   * usage_limits are checked against.
   */
  usage: Type.Optional(
    Type.Object({
      characters: Type.Integer({ description: 'Characters of text translation, document translation and text improvement.' }),
      speech_to_text_milliseconds: Type.Integer(),
    }),
  ),
  /** Only in the create response: the secret, shown once. */
  key: Type.Optional(Type.String()),
});

// Bodies are checked by admin-key-params.ts (the reference's messages).
const keyId = { key_id: Type.String({ description: 'The key to change: two GUIDs joined by a colon.' }) };
const label = Type.String({ maxLength: MAX_LABEL_LENGTH, description: 'Name of the key (no control characters).' });
const limit = (what: string) =>
  Type.Optional(Nullable(Type.Union([Type.Integer({ minimum: 0 }), Type.String()], { description: `Limit of ${what}; null removes it.` })));
const scopes = Type.Optional(
  Nullable(Type.Union([Type.Array(Type.String()), Type.String()], { description: `Endpoint groups the key may use (${SCOPES.join(', ')}), as a list or comma-separated; null = all.` })),
);
const CreateBody = handlerChecked({ label: Type.Optional(label), scopes });
const KeyBody = handlerChecked(keyId);
const LabelBody = handlerChecked({ ...keyId, label });
const LimitsBody = handlerChecked({ ...keyId, characters: limit('characters per month'), speech_to_text_milliseconds: limit('speech-to-text milliseconds per month') });
const ScopesBody = handlerChecked({ ...keyId, scopes });

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
  const one = (body: TSchema) => ({ consumes: JSON_OR_FORM, body, response: { 200: ApiKeyRecord, ...errorResponses } });
  const account = (request: FastifyRequest) => authOf(request).account;

  app.post('/v2/admin/developer-keys', { config, schema: one(CreateBody) }, async (request) => {
    const { key, secret } = await keys.create(account(request), parseCreateBody(request.body));
    return { ...keyRecord(key), key: secret };
  });
  app.get(
    '/v2/admin/developer-keys',
    { config, schema: { response: { 200: Type.Array(ApiKeyRecord), ...errorResponses } } },
    async (request) =>
      (await keys.list(account(request))).map(({ key, periodUsage }) => ({
        ...keyRecord(key),
        usage: { characters: periodUsage.characters, speech_to_text_milliseconds: periodUsage.speechToTextMs },
      })),
  );
  app.put('/v2/admin/developer-keys/deactivate', { config, schema: one(KeyBody) }, async (request) =>
    keyRecord(await keys.deactivate(account(request), parseKeyBody(request.body))),
  );
  app.put('/v2/admin/developer-keys/label', { config, schema: one(LabelBody) }, async (request) => {
    const { keyId, label } = parseLabelBody(request.body);
    return keyRecord(await keys.rename(account(request), keyId, label));
  });
  app.put('/v2/admin/developer-keys/limits', { config, schema: one(LimitsBody) }, async (request) => {
    const { keyId, limits } = parseLimitsBody(request.body);
    return keyRecord(await keys.setLimits(account(request), keyId, limits));
  });
  app.put('/v2/admin/developer-keys/scopes', { config, schema: one(ScopesBody) }, async (request) => {
    const { keyId, scopes } = parseScopesBody(request.body);
    return keyRecord(await keys.setScopes(account(request), keyId, scopes));
  });
}
