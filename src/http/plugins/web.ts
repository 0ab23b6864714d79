// The web page at `/` (built from web/ into dist/web by `npm run build`): its few files are read once at start and
// served from memory with an ETag, so the page costs the API nothing beyond two routes. GET /web/session tells the
// page what the signed-in key may do.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { authOf } from './auth.js';
import { ErrorBody, binaryResponse, errorResponses } from '../schemas/common.js';

/** dist/web, beside dist/src where this file is compiled to. */
export const WEB_DIR = fileURLToPath(new URL('../../../web/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

// Everything comes from this origin; the API is fetched from it too. No inline script, no framing.
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const Session = Type.Object({
  plan: Type.String(),
  admin: Type.Boolean(),
  label: Type.String(),
  scopes: Type.Union([Type.Array(Type.String()), Type.Null()]),
  document_formats: Type.Array(Type.Object({ extensions: Type.Array(Type.String()), max_bytes: Type.Integer() })),
  write_languages: Type.Array(
    Type.Object({ code: Type.String(), rephrase: Type.Boolean(), correct: Type.Boolean(), style: Type.Boolean() }),
    { description: 'What the Write page can offer: per language, whether a language model rephrases it and a checker corrects it.' },
  ),
});

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(join(dir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { type, body, gzip: gzipSync(body, { level: 9 }), etag });
  }
  return assets;
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  void reply
    .header('content-type', asset.type)
    .header('etag', asset.etag)
    // Revalidated on every load (a 304 is a few bytes), so a new build shows at once.
    .header('cache-control', 'no-cache')
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (asset.type.startsWith('text/html')) void reply.header('content-security-policy', CSP).header('referrer-policy', 'no-referrer');
  if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
    return reply.header('content-encoding', 'gzip').send(asset.gzip);
  }
  return reply.send(asset.body);
}

export async function webRoutes(app: FastifyInstance, options: { services: Services; dir?: string }): Promise<void> {
  const assets = loadAssets(options.dir ?? WEB_DIR);
  const formats = options.services.documents.formats.all().map((f) => ({ extensions: f.extensions, max_bytes: f.maxBytes }));
  const config = { auth: 'none' as const };
  const notBuilt = (reply: FastifyReply) =>
    reply.status(404).send({ message: 'The web page is not built: run `npm run build`.', code: 'not_found' });

  app.get('/', { config, schema: { response: { 200: binaryResponse('The web page.', 'text/html'), 404: ErrorBody } } }, async (request, reply) => {
    const page = assets.get('index.html');
    return page ? send(request, reply, page) : notBuilt(reply);
  });
  const fileSchema = { params: Type.Object({ name: Type.String() }), response: { 200: binaryResponse('A file of the web page (script, style, image).'), 404: ErrorBody } };
  app.get<{ Params: { name: string } }>('/web/:name', { config, schema: fileSchema }, async (request, reply) => {
    const asset = request.params.name === 'index.html' ? undefined : assets.get(request.params.name);
    if (!asset) return reply.status(404).send({ message: `Not found: GET /web/${request.params.name}`, code: 'not_found' });
    return send(request, reply, asset);
  });
  // What the page shows follows the key: its plan, whether it is the admin key, and its scopes (null = all); and the
  // document formats with their upload limits.
  app.get('/web/api/session', { schema: { response: { 200: Session, ...errorResponses } } }, async (request) => {
    const { account, key } = authOf(request);
    const scopes = key.scopes === null ? null : [...key.scopes];
    // asked each time: a language model installed while the server runs changes what Write offers
    const write_languages = options.services.write.languages();
    return { plan: account.plan, admin: key.kind === 'admin', label: key.label, scopes, document_formats: formats, write_languages };
  });
}
