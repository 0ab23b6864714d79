// The translate benchmark's floor for any Fastify server: one POST /v2/translate route over the same Apertium engine
// Tolk uses, with nothing else (no auth, validation, segmentation, billing or logging). Started by bench/translate.ts
// in its own process; prints "ready" once it listens.
//
// Run: node dist/bench/bare-fastify-server.js PORT [ENGINE_OPTIONS_JSON]   (the bench passes its own engine options)

import Fastify from 'fastify';
import { ApertiumEngine, type ApertiumEngineOptions } from '../src/engines/apertium/index.js';

const port = Number(process.argv[2]);
const engine = new ApertiumEngine(process.argv[3] ? (JSON.parse(process.argv[3]) as ApertiumEngineOptions) : { pairs: ['en-es'] });
await engine.start();
const app = Fastify({ logger: false });
app.post('/v2/translate', async (request) => {
  const { text } = request.body as { text: string[] };
  const out = await engine.translate({ source: 'en', target: 'es' }, text, {});
  return { translations: out.map((t) => ({ detected_source_language: 'EN', text: t })) };
});
await app.listen({ host: '127.0.0.1', port });
process.stdout.write('ready\n');
process.once('SIGTERM', () => void app.close().then(() => engine.close()));
