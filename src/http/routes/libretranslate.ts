// LibreTranslate's API (TOLK_LIBRETRANSLATE=true) for applications that only speak it (Mastodon, Discourse, Weblate…):
// /translate, /detect, /languages, /translate_file (and its signed download), /frontend/settings and /spec. The same
// keys, translation core, detector, document jobs, billing, limits and usage as the DeepL-style routes; LibreTranslate's
// codes, shapes and `{"error": "…"}` bodies (docs/libretranslate.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import type { Services } from '../../services.js';
import type { AuthContext } from '../../accounts/accounts-service.js';
import type { DocumentHandle, DocumentState } from '../../documents/document-service.js';
import { ServiceError, invalid } from '../../lib/errors.js';
import { baseLang, languageName } from '../../translate/languages.js';
import { NO_CUSTOMIZATION, textOptions } from '../../translate/translate-job.js';
import { serviceErrorOf } from '../errors.js';
import { authOf } from '../plugins/auth.js';
import { onDelivered } from '../plugins/sockets.js';
import { clientSignal } from '../client-signal.js';
import { receiveMultipartFields, receiveMultipartUpload } from '../multipart-upload.js';
import { assertSigned, signedUrl } from '../signed-url.js';
import { queryValue } from '../query.js';
import { JSON_OR_FORM, OneOrMany, binaryResponse, handlerChecked } from '../schemas/common.js';
import {
  libreValues,
  missing,
  parseDetectBody,
  parseLanguages,
  parseTranslateBody,
  targetFromLibre,
  toLibreCode,
  type LibreTranslateRequest,
} from '../requests/libretranslate-request.js';
import { MAX_TEXTS } from '../requests/translate-request.js';
import { chineseScript } from '../../detect/chinese-script.js';
import type { DetectionOutcome } from '../../detect/language-detector.js';
import { TRANSLATE_BODY_LIMIT, reportingTagHeader } from './translate.js';
import { allowCrossOrigin, failedWith, libreErrorHandler } from './libretranslate-http.js';

const LibreError = Type.Object({ error: Type.String() });
/** LibreTranslate reads JSON, URL-encoded forms and multipart forms (its own web page posts the latter). */
const LIBRE_BODIES = [...JSON_OR_FORM, 'multipart/form-data'];
/** LibreTranslate answers 400, 403, 429 and 500; a signed download of a gone document is 404. */
const libreErrors = { 400: LibreError, 403: LibreError, 404: LibreError, 429: LibreError, 500: LibreError };

const DetectedLanguage = Type.Object({
  language: Type.String(),
  confidence: Type.Number({ description: '0–100.' }),
});
const TranslateBody = handlerChecked({
  q: OneOrMany(Type.String(), 'Text(s) to translate; an array gives arrays in the answer.'),
  source: Type.String({ description: 'Source language code, or `auto`.' }),
  target: Type.String({ description: 'Target language code.' }),
  format: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('html')], { description: 'Default `text`.' })),
  alternatives: Type.Optional(Type.Union([Type.Number(), Type.String()], { description: 'Alternatives wanted; the engines give none, so the lists are empty.' })),
  api_key: Type.Optional(Type.String({ description: 'The API key (or the Authorization header).' })),
});
const TranslateResponse = Type.Object({
  translatedText: Type.Union([Type.String(), Type.Array(Type.String())]),
  detectedLanguage: Type.Optional(Type.Union([DetectedLanguage, Type.Array(DetectedLanguage)], { description: 'With `source=auto`.' })),
  alternatives: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Array(Type.Array(Type.String()))])),
});
const DetectBody = handlerChecked({
  q: Type.String({ description: 'Text whose language to detect.' }),
  api_key: Type.Optional(Type.String()),
});
const Language = Type.Object({ code: Type.String(), name: Type.String(), targets: Type.Array(Type.String()) });
const FileBody = handlerChecked({
  file: Type.String({ format: 'binary', description: 'The file; its extension names the format (see /frontend/settings).' }),
  source: Type.String({ description: 'Source language code, or `auto`.' }),
  target: Type.String(),
  api_key: Type.Optional(Type.String()),
});
const NamedLanguage = Type.Object({ code: Type.String(), name: Type.String() });
const FrontendSettings = Type.Object({
  charLimit: Type.Integer(),
  frontendTimeout: Type.Integer(),
  apiKeys: Type.Boolean(),
  keyRequired: Type.Boolean(),
  suggestions: Type.Boolean(),
  filesTranslation: Type.Boolean(),
  supportedFilesFormat: Type.Array(Type.String()),
  language: Type.Object({ source: NamedLanguage, target: NamedLanguage }),
});
const DownloadParams = Type.Object({ document_id: Type.String({ maxLength: 100 }), filename: Type.String({ maxLength: 200 }) });
const DownloadQuery = Type.Object(
  { key: Type.String(), expires: Type.String(), signature: Type.String() },
  { additionalProperties: true, 'x-validated-by': 'handler' },
);

/** A file name safe for a URL path and a Content-Disposition header. */
function safeFileName(name: string | undefined): string {
  const cleaned = (name ?? '').replace(/^.*[\\/]/, '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(-100);
  return /[A-Za-z0-9]/.test(cleaned) ? cleaned : 'document';
}

export interface LibreTranslateOptions {
  services: Services;
  config: Config;
}

/** An auto-detected text's source: what it is translated from, the language the answer names, and how sure. */
interface DetectedSource {
  source: string;
  label: string;
  confidence: number;
}

export async function libreTranslateRoutes(app: FastifyInstance, { services, config }: LibreTranslateOptions): Promise<void> {
  app.setErrorHandler(libreErrorHandler);
  app.addHook('onResponse', (request, reply, done) => {
    const outcome = reply.statusCode < 400 ? 'ok' : (failedWith.get(request) ?? `status_${reply.statusCode}`);
    services.metrics.libreTranslateRequest(request.routeOptions.url ?? 'unmatched', outcome);
    done();
  });
  await app.register(multipart);
  if (config.libreTranslateCors !== 'none') allowCrossOrigin(app, config.libreTranslateCors);
  const documents = services.documents;
  const maxUpload = documents.formats.maxUploadBytes();
  const keyed = (scope: 'translate' | 'detect' | 'document') => ({ scope, apiKeyParam: true });

  /** The detector's confidence (0–100) that `text` is in `language`; 0 when it had guessed another language. */
  const confidenceIn = (language: string, outcome: DetectionOutcome) =>
    outcome.rawLanguage !== undefined && baseLang(outcome.rawLanguage) === baseLang(language) ? Math.round(outcome.confidence * 100) : 0;

  /** A detected Tolk code in LibreTranslate's spelling; Chinese is named by the script the text is written in. */
  const detectedCode = (language: string, text: string) =>
    baseLang(language) === 'zh' && chineseScript(text) === 'hant' ? 'zh-Hant' : toLibreCode(language);

  /**
   * The request's parameters wherever LibreTranslate reads them (JSON; or query string and form, URL-encoded or
   * multipart, as its own web page posts), and the key: a multipart body's `api_key` is known only once it is read.
   */
  const valuesOf = async (request: FastifyRequest): Promise<Record<string, unknown>> => {
    const json = String(request.headers['content-type'] ?? '').toLowerCase().includes('json');
    const body = request.isMultipart() ? await receiveMultipartFields(request, MAX_TEXTS + 8, TRANSLATE_BODY_LIMIT) : request.body;
    const values = libreValues(body, request.query, json);
    if (!request.auth) await app.admitKey(request, typeof values.api_key === 'string' ? values.api_key : undefined);
    return values;
  };

  /**
   * The source of each text of an auto-detected request. A text the detector is sure of keeps its language; the
   * others (a poll's "Sí", "No") take the language of the whole request read as one text, as LibreTranslate detects a
   * batch once; when even that is undecided, the default source language with confidence 0 (LibreTranslate: en, 0).
   */
  const detectSources = async (texts: string[], targetLang: string): Promise<(DetectedSource | undefined)[]> => {
    const outcomes = await Promise.all(texts.map((t) => services.detector.detect(t)));
    let whole: DetectedSource | undefined;
    const wholeRequest = async (): Promise<DetectedSource> => {
      if (whole) return whole;
      const joined = texts.join('\n');
      const source = await services.translate.detectSource(joined, targetLang).catch((err: unknown) => {
        if (serviceErrorOf(err as Error)?.code === 'invalid_request') return config.defaultSourceLang ?? 'en';
        throw err;
      });
      const outcome = await services.detector.detect(joined);
      // nothing recognised (numbers, symbols): translated as the core decides, labelled as LibreTranslate labels it
      whole = outcome.rawLanguage === undefined
        ? { source, label: config.defaultSourceLang ?? 'en', confidence: 0 }
        : { source, label: source, confidence: confidenceIn(source, outcome) };
      return whole;
    };
    return Promise.all(
      outcomes.map(async (outcome) => {
        if (outcome.status === 'success' && outcome.language !== undefined) {
          const language = baseLang(outcome.language);
          return { source: language, label: language, confidence: Math.round(outcome.confidence * 100) };
        }
        return texts.length > 1 ? wholeRequest() : undefined;
      }),
    );
  };

  /** Translates texts from one source each, one core call per source, answers in the request's order. */
  const translateGrouped = async (request: FastifyRequest, reply: FastifyReply, req: LibreTranslateRequest, sources: (string | undefined)[]) => {
    const html = req.format === 'html';
    const groups = new Map<string | undefined, number[]>();
    sources.forEach((source, i) => groups.set(source, [...(groups.get(source) ?? []), i]));
    const texts: string[] = [];
    const detected: string[] = [];
    for (const [sourceLang, indexes] of groups) {
      const outcome = await services.translate.translateText({
        sourceLang,
        targetLang: req.targetLang,
        options: textOptions(html ? { tagHandling: 'html', splitSentences: 'nonewlines' } : {}),
        customization: NO_CUSTOMIZATION,
        texts: indexes.map((i) => req.texts[i]!),
        caller: authOf(request),
        reportingTag: reportingTagHeader(request.headers),
        signal: clientSignal(reply),
      });
      outcome.results.forEach((r, k) => {
        texts[indexes[k]!] = r.text;
        detected[indexes[k]!] = r.detectedSourceLanguage.toLowerCase();
      });
    }
    return { texts, detected };
  };

  app.post(
    '/translate',
    {
      bodyLimit: TRANSLATE_BODY_LIMIT,
      config: keyed('translate'),
      schema: { consumes: LIBRE_BODIES, body: TranslateBody, response: { 200: TranslateResponse, ...libreErrors } },
    },
    async (request, reply) => {
      const req = parseTranslateBody(await valuesOf(request));
      // markup is not language: the detector reads the text between the tags (no '<' inside a match keeps it linear
      // on text full of unclosed '<')
      const plain = req.format === 'html' ? req.texts.map((t) => t.replace(/<[^<>]*>/g, ' ')) : req.texts;
      const auto = req.sourceLang === undefined;
      const chosen = auto ? await detectSources(plain, req.targetLang) : req.texts.map(() => undefined);
      const { texts, detected } = await translateGrouped(request, reply, req, auto ? chosen.map((c) => c?.source) : req.texts.map(() => req.sourceLang));
      const pick = <T>(items: T[]) => (req.batch ? items : items[0]!);
      const detectedLanguage = auto
        ? await Promise.all(
            detected.map(async (language, i) => {
              const chose = chosen[i];
              if (chose) return { language: detectedCode(chose.label, plain[i]!), confidence: chose.confidence };
              return { language: detectedCode(language, plain[i]!), confidence: confidenceIn(language, await services.detector.detect(plain[i]!)) };
            }),
          )
        : undefined;
      return {
        translatedText: pick(texts),
        ...(detectedLanguage ? { detectedLanguage: pick(detectedLanguage) } : {}),
        ...(req.alternatives > 0 ? { alternatives: pick(req.texts.map((): string[] => [])) } : {}),
      };
    },
  );

  app.post(
    '/detect',
    { config: keyed('detect'), schema: { consumes: LIBRE_BODIES, body: DetectBody, response: { 200: Type.Array(DetectedLanguage), ...libreErrors } } },
    async (request) => {
      const text = parseDetectBody(await valuesOf(request));
      const outcome = await services.detector.detect(text);
      // As LibreTranslate: nothing recognised is the default language with confidence 0.
      if (outcome.rawLanguage === undefined) return [{ language: toLibreCode(config.defaultSourceLang), confidence: 0 }];
      return [{ language: detectedCode(outcome.rawLanguage, text), confidence: Math.round(outcome.confidence * 100) }];
    },
  );

  // LibreTranslate's liveness answer; Tolk's own probes are /health/live and /health/ready.
  app.get('/health', { config: { auth: 'none' }, logLevel: 'warn', schema: { response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({
    status: 'ok' as const,
  }));

  // LibreTranslate's answer on a server with suggestions turned off: Tolk keeps no suggestion store.
  app.post('/suggest', { config: { auth: 'none' }, schema: { response: { 200: Type.Object({ success: Type.Boolean() }, { description: 'LibreTranslate with suggestions on; Tolk never answers it.' }), 403: LibreError } } }, async (_request, reply) =>
    reply.status(403).send({ error: 'Suggestions are disabled on this server.' }),
  );

  // Public, as in LibreTranslate: Mastodon reads the languages without a key.
  app.get('/languages', { config: { auth: 'none' }, schema: { response: { 200: Type.Array(Language), ...libreErrors } } }, async () => {
    const catalogue = services.languages();
    const entries = new Map<string, Set<string>>();
    const entry = (tolkCode: string) => {
      const code = toLibreCode(tolkCode);
      let targets = entries.get(code);
      if (!targets) entries.set(code, (targets = new Set()));
      return targets;
    };
    const targets = catalogue.targets.map((t) => t.code);
    for (const t of targets) entry(t);
    for (const source of catalogue.sources) {
      const reachable = entry(source);
      for (const t of targets) {
        if (baseLang(t) !== source && (services.translate.canTranslate(source, t) || services.translate.canTranslate(source, baseLang(t)))) {
          reachable.add(toLibreCode(t));
        }
      }
    }
    return [...entries]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([code, reachable]) => ({ code, name: languageName(targetFromLibre(code) ?? code), targets: [...reachable].sort() }));
  });

  app.get('/frontend/settings', { config: { auth: 'none' }, schema: { response: { 200: FrontendSettings, ...libreErrors } } }, async () => {
    const source = config.defaultSourceLang;
    const target = services.languages().targets.find((t) => baseLang(t.code) !== source)?.code ?? source;
    return {
      charLimit: -1,
      frontendTimeout: 500,
      apiKeys: true,
      keyRequired: true,
      suggestions: false,
      filesTranslation: true,
      supportedFilesFormat: documents.formats.all().flatMap((f) => f.extensions.map((e) => `.${e}`)),
      language: { source: { code: 'auto', name: 'Auto Detect' }, target: { code: toLibreCode(target), name: languageName(target) } },
    };
  });

  /** Waits for the job to end (each status call waits for the worker), until the request deadline or the client leaves. */
  const awaitDocument = async (caller: AuthContext, handle: DocumentHandle, signal: AbortSignal): Promise<DocumentState> => {
    const deadline = Date.now() + config.timeouts.requestMs;
    let state = await documents.status(caller, handle.id, handle.key);
    while ((state.status === 'queued' || state.status === 'translating') && Date.now() < deadline && !signal.aborted) {
      state = await documents.status(caller, handle.id, handle.key);
    }
    return state;
  };

  app.post(
    '/translate_file',
    {
      bodyLimit: maxUpload + 1024 * 1024,
      config: keyed('document'),
      schema: { consumes: ['multipart/form-data'], body: FileBody, response: { 200: Type.Object({ translatedFileUrl: Type.String() }), ...libreErrors } },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw missing('file');
      const { file, fileName, fields } = await receiveMultipartUpload(request, documents, maxUpload);
      let handle: DocumentHandle;
      try {
        // a key given only as a multipart field is known now
        if (!request.auth) await app.admitKey(request, typeof fields.api_key === 'string' ? fields.api_key : undefined);
        if (!file) throw missing('file');
        const { sourceLang, targetLang } = parseLanguages(fields);
        handle = await documents.enqueue(authOf(request), file, fileName, {
          sourceLang,
          targetLang,
          formality: 'default',
          outputFormat: undefined,
          enableWatermark: false,
          glossaryIds: [],
          styleId: undefined,
          translationMemoryId: undefined,
          translationMemoryThreshold: undefined,
          fileName: undefined,
        }, reportingTagHeader(request.headers));
      } catch (err) {
        if (file) await documents.discard(file);
        throw err;
      }
      const state = await awaitDocument(authOf(request), handle, clientSignal(reply));
      if (state.status === 'error') throw state.serverFault ? new ServiceError('internal', state.errorMessage) : invalid(`Cannot translate file: ${state.errorMessage}`);
      if (state.status !== 'done') throw new ServiceError('engine_timeout', 'Cannot translate file: it took too long.');
      const path = `/download_file/${handle.id}/${safeFileName(fileName)}`;
      const expiresAt = Date.now() + config.documents.retentionHours * 3_600_000;
      return { translatedFileUrl: signedUrl(services.urlSigner, request, path, expiresAt, `key=${encodeURIComponent(handle.key)}`) };
    },
  );

  // The URL /translate_file answers: its signature and the document's key are the permission; it works once, and the
  // download is charged to the key that uploaded the file.
  app.get<{ Params: { document_id: string; filename: string }; Querystring: Record<string, unknown> }>(
    '/download_file/:document_id/:filename',
    {
      config: { auth: 'none' },
      schema: { params: DownloadParams, querystring: DownloadQuery, response: { 200: binaryResponse('The translated file, once.'), ...libreErrors } },
    },
    async (request, reply) => {
      assertSigned(services.urlSigner, request);
      const key = queryValue(request.query, 'key') ?? '';
      const download = await documents.download(null, request.params.document_id, key);
      onDelivered(request, reply, { delivered: download.complete, lost: download.release });
      return reply
        .header('content-type', download.contentType)
        .header('content-length', String(download.bytes))
        .header('content-disposition', `attachment; filename="${safeFileName(request.params.filename)}"`)
        .send(download.stream);
    },
  );

  // LibreTranslate's API description: this plugin's part of the OpenAPI document.
  app.get('/spec', { config: { auth: 'none' }, schema: { response: { 200: Type.Object({}, { additionalProperties: true }) } } }, async () => {
    const doc = app.swagger() as { paths?: Record<string, unknown> };
    const ours = ['/translate', '/detect', '/languages', '/translate_file', '/frontend/settings'];
    return { ...doc, paths: Object.fromEntries(Object.entries(doc.paths ?? {}).filter(([path]) => ours.includes(path))) };
  });
}
