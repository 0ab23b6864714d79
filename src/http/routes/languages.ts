// GET /v2/languages and /v3/languages: exactly what the installed engines and the detector can do.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { unsupportedValue, invalid } from '../../lib/errors.js';
import { languageName, toApiCode, toBcp47 } from '../../translate/languages.js';
import type { Services } from '../../services.js';
import { errorResponses } from '../schemas/common.js';

const V2Language = Type.Object({
  language: Type.String(),
  name: Type.String(),
  supports_formality: Type.Optional(Type.Boolean()),
});

const V3Language = Type.Object({
  lang: Type.String(),
  name: Type.String(),
  usable_as_source: Type.Boolean(),
  usable_as_target: Type.Boolean(),
  status: Type.String(),
  features: Type.Record(Type.String(), Type.Object({ status: Type.String() }, { additionalProperties: true })),
});

export const V3_RESOURCES = [
  'translate_text',
  'translate_document',
  'glossary',
  'voice',
  'write',
  'style_rules',
  'translation_memory',
] as const;

/** Features per resource, as /v3/languages/resources describes them. */
const RESOURCE_FEATURES: Record<string, { name: string; needs_source_support?: boolean; needs_target_support?: boolean }[]> = {
  translate_text: [
    { name: 'auto_detection', needs_source_support: true },
    { name: 'formality', needs_target_support: true },
  ],
  translate_document: [],
  glossary: [],
  voice: [],
  write: [
    { name: 'writing_style', needs_target_support: true },
    { name: 'tone', needs_target_support: true },
  ],
  style_rules: [],
  translation_memory: [],
};

export async function languageRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const v2Handler = async (request: { query: unknown; body: unknown }) => {
    const params = { ...(request.body as object | undefined), ...(request.query as object | undefined) } as Record<string, unknown>;
    const type = params.type ?? 'source';
    if (type !== 'source' && type !== 'target') throw unsupportedValue('type');
    const catalogue = services.languages();
    if (type === 'source') {
      return catalogue.sources.map((code) => ({ language: toApiCode(code), name: languageName(code) }));
    }
    return catalogue.targets.map((t) => ({ language: toApiCode(t.code), name: languageName(t.code), supports_formality: t.formality }));
  };
  const v2Schema = { response: { 200: Type.Array(V2Language), ...errorResponses } };
  app.get('/v2/languages', { schema: v2Schema, config: { scope: 'languages' } }, v2Handler);
  app.post('/v2/languages', { schema: v2Schema, config: { scope: 'languages' } }, v2Handler);

  app.get(
    '/v3/languages',
    { schema: { response: { 200: Type.Array(V3Language), ...errorResponses } }, config: { scope: 'languages' } },
    async (request) => {
    const query = request.query as Record<string, unknown>;
    const resource = query.resource;
    if (resource === undefined || resource === '') throw invalid("Parameter 'resource' not specified");
    if (typeof resource !== 'string' || !(V3_RESOURCES as readonly string[]).includes(resource)) throw unsupportedValue('resource');
    const include = ([] as unknown[]).concat(query.include ?? []).flatMap((v) => String(v).split(','));
    for (const v of include) if (v !== 'beta' && v !== 'external') throw unsupportedValue('include');
    if (resource === 'write') {
      // Text improvement works within one language: each listed language is usable as source and target.
      return services.write.languages().map((l) => ({
        lang: toBcp47(l.code),
        name: languageName(l.code),
        usable_as_source: true,
        usable_as_target: true,
        status: 'stable',
        features: l.style ? { writing_style: { status: 'stable' }, tone: { status: 'stable' } } : {},
      }));
    }
    if (resource !== 'translate_text') return []; // no engine provides these resources yet
    const catalogue = services.languages();
    const codes = new Set([...catalogue.sources, ...catalogue.targets.map((t) => t.code)]);
    const targets = new Map(catalogue.targets.map((t) => [t.code, t]));
    const sources = new Set(catalogue.sources);
    return [...codes].sort().map((code) => {
      const features: Record<string, { status: string }> = {};
      if (sources.has(code) && services.detectableSources.has(code)) features.auto_detection = { status: 'stable' };
      if (targets.get(code)?.formality) features.formality = { status: 'stable' };
      return {
        lang: toBcp47(code),
        name: languageName(code),
        usable_as_source: sources.has(code),
        usable_as_target: targets.has(code),
        status: 'stable',
        features,
      };
    });
  });

  app.get('/v3/languages/resources', { config: { scope: 'languages' } }, async () =>
    V3_RESOURCES.map((name) => ({ name, features: RESOURCE_FEATURES[name] ?? [] })),
  );
}
