// GET /v2/languages and /v3/languages: exactly what the installed engines and the detector can do.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { unsupportedValue, invalid } from '../../lib/errors.js';
import { baseLang, languageName, toApiCode, toBcp47 } from '../../translate/languages.js';
import { GLOSSARY_LANGUAGES } from '../../customization/glossaries/glossary-service.js';
import { STYLE_RULE_LANGUAGES } from '../../customization/style-rules/style-rule-service.js';
import { TM_SOURCE_LANGUAGES } from '../../customization/memories/memory-service.js';
import type { Services } from '../../services.js';
import { JSON_OR_FORM, errorResponses, handlerChecked } from '../schemas/common.js';
import { parseFormFields } from '../form-fields.js';

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
    { name: 'glossary', needs_source_support: true, needs_target_support: true },
    { name: 'tag_handling', needs_source_support: true, needs_target_support: true },
    { name: 'style_rules', needs_target_support: true },
    { name: 'translation_memory', needs_source_support: true },
  ],
  translate_document: [
    { name: 'auto_detection', needs_source_support: true },
    { name: 'formality', needs_target_support: true },
    { name: 'glossary', needs_source_support: true, needs_target_support: true },
    { name: 'style_rules', needs_target_support: true },
    { name: 'translation_memory', needs_source_support: true },
  ],
  glossary: [],
  voice: [
    { name: 'transcription', needs_source_support: true },
    { name: 'translated_speech', needs_target_support: true },
    { name: 'spoken_terms', needs_source_support: true },
  ],
  write: [
    { name: 'writing_style', needs_target_support: true },
    { name: 'tone', needs_target_support: true },
  ],
  style_rules: [],
  translation_memory: [],
};

type V3Entry = Static<typeof V3Language>;
type Features = V3Entry['features'];
const STABLE = { status: 'stable' };

/** One entry per code; `features(code, asSource, asTarget)` names what applies to it. */
function entries(
  codes: Iterable<string>,
  usable: (code: string) => { source: boolean; target: boolean },
  features: (code: string, asSource: boolean, asTarget: boolean) => Features = () => ({}),
): V3Entry[] {
  return [...new Set(codes)].sort().flatMap((code) => {
    const { source, target } = usable(code);
    if (!source && !target) return [];
    return [{ lang: toBcp47(code), name: languageName(code), usable_as_source: source, usable_as_target: target, status: 'stable', features: features(code, source, target) }];
  });
}

/** What /v3/languages lists for `resource`: only what the installed engines and the customization services really do. */
function languagesFor(resource: string, includeBeta: boolean, services: Services): V3Entry[] {
  const catalogue = services.languages();
  const sources = new Set(catalogue.sources);
  const targets = new Map(catalogue.targets.map((t) => [t.code, t]));
  const translatable = [...sources, ...targets.keys()];
  const inList = (list: readonly string[], code: string) => list.includes(baseLang(code));
  const translationFeatures = (withTags: boolean) => (code: string, asSource: boolean, asTarget: boolean): Features => {
    const f: Features = {};
    if (asSource && services.detectableSources.has(code)) f.auto_detection = STABLE;
    if (asTarget && targets.get(code)?.formality) f.formality = STABLE;
    if (inList(GLOSSARY_LANGUAGES, code)) f.glossary = STABLE;
    if (withTags) f.tag_handling = STABLE;
    if (asTarget && inList(STYLE_RULE_LANGUAGES, code)) f.style_rules = STABLE;
    if (asSource && inList(TM_SOURCE_LANGUAGES, code)) f.translation_memory = STABLE;
    return f;
  };
  const usableForTranslation = (code: string) => ({ source: sources.has(code), target: targets.has(code) });
  switch (resource) {
    case 'translate_text':
      return entries(translatable, usableForTranslation, translationFeatures(true));
    case 'translate_document':
      return entries(translatable, usableForTranslation, translationFeatures(false));
    case 'glossary':
      return entries(GLOSSARY_LANGUAGES, () => ({ source: true, target: true }));
    case 'style_rules':
      return entries(STYLE_RULE_LANGUAGES, () => ({ source: false, target: true }));
    case 'translation_memory':
      return entries([...TM_SOURCE_LANGUAGES, ...targets.keys()], (code) => ({ source: TM_SOURCE_LANGUAGES.includes(code), target: targets.has(code) }));
    case 'write': {
      // Text improvement works within one language: each listed language is usable as source and target.
      const write = services.write.languages();
      const styled = new Set(write.filter((l) => l.style).map((l) => l.code));
      return entries(
        write.map((l) => l.code),
        () => ({ source: true, target: true }),
        (code): Features => (styled.has(code) ? { writing_style: STABLE, tone: STABLE } : {}),
      );
    }
    case 'voice': {
      const voice = services.voice.capabilities();
      const spoken = [...voice.transcribable];
      // a transcript comes in the spoken language itself, and in every language the engines translate it to
      const voiceTargets = [...spoken, ...[...targets.keys()].filter((t) => spoken.some((s) => voice.canTranslate(s, t)))];
      return entries(
        [...spoken, ...voiceTargets],
        (code) => ({ source: voice.transcribable.has(code), target: voiceTargets.includes(code) }),
        (code, asSource, asTarget) => {
          const f: Features = {};
          if (asSource) f.transcription = STABLE;
          if (asSource && includeBeta) f.spoken_terms = { status: 'beta' };
          if (asTarget && voice.canSpeak(code)) f.translated_speech = STABLE;
          return f;
        },
      );
    }
    default:
      return [];
  }
}

/** A GET body is small: the Python client sends `type=target` as a form body even on GET. */
const GET_BODY_LIMIT = 4096;

/**
 * Fastify does not parse bodies of GET requests; read a form or JSON one here (bounded), as the reference accepts it.
 */
async function getBody(request: FastifyRequest): Promise<Record<string, unknown> | undefined> {
  const type = String(request.headers['content-type'] ?? '');
  const json = type.includes('application/json');
  if (!json && !type.includes('application/x-www-form-urlencoded')) return undefined;
  let text = '';
  for await (const chunk of request.raw) {
    text += String(chunk);
    if (text.length > GET_BODY_LIMIT) throw invalid('Request body too large for GET /v2/languages.');
  }
  if (!text) return undefined;
  if (!json) return parseFormFields(text);
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    throw invalid('Invalid JSON body.');
  }
}

// Parameters checked in the handlers (the reference's messages).
const typeParam = { type: Type.Optional(Type.Union([Type.Literal('source'), Type.Literal('target')], { description: 'Source (default) or target languages.' })) };
// The query is validated by its schema (a failure reads "Value for 'type' not supported.", as the handler words it);
// a body may be absent, so the handler checks it.
const TypeQuery = Type.Object(typeParam, { additionalProperties: true });
const TypeBody = handlerChecked(typeParam);
const V3Query = handlerChecked({
  resource: Type.Union(V3_RESOURCES.map((r) => Type.Literal(r)), { description: 'The API resource whose languages to list.' }),
  include: Type.Optional(Type.String({ description: '`beta` and/or `external`, comma-separated or repeated.' })),
});
const Resource = Type.Object({
  name: Type.String(),
  features: Type.Array(
    Type.Object({ name: Type.String(), needs_source_support: Type.Optional(Type.Boolean()), needs_target_support: Type.Optional(Type.Boolean()) }),
  ),
});

export async function languageRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.addHook('preHandler', async (request) => {
    if (request.method === 'GET' && request.routeOptions.url === '/v2/languages' && request.body === undefined) {
      request.body = await getBody(request);
    }
  });
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
  const v2Schema = { querystring: TypeQuery, response: { 200: Type.Array(V2Language), ...errorResponses } };
  app.get('/v2/languages', { schema: v2Schema, config: { scope: 'languages' } }, v2Handler);
  app.post('/v2/languages', { schema: { ...v2Schema, consumes: JSON_OR_FORM, body: TypeBody }, config: { scope: 'languages' } }, v2Handler);

  app.get(
    '/v3/languages',
    { schema: { querystring: V3Query, response: { 200: Type.Array(V3Language), ...errorResponses } }, config: { scope: 'languages' } },
    async (request) => {
    const query = request.query as Record<string, unknown>;
    const resource = query.resource;
    if (resource === undefined || resource === '') throw invalid("Parameter 'resource' not specified");
    if (typeof resource !== 'string' || !(V3_RESOURCES as readonly string[]).includes(resource)) throw unsupportedValue('resource');
    const include = ([] as unknown[]).concat(query.include ?? []).flatMap((v) => String(v).split(','));
    for (const v of include) if (v !== 'beta' && v !== 'external') throw unsupportedValue('include');
    return languagesFor(resource, include.includes('beta'), services);
  });

  app.get('/v3/languages/resources', { schema: { response: { 200: Type.Array(Resource), ...errorResponses } }, config: { scope: 'languages' } }, async () =>
    V3_RESOURCES.map((name) => ({ name, features: RESOURCE_FEATURES[name] ?? [] })),
  );
}
