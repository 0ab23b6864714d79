// A speech model installed or removed while the server runs (the `tolk models` code path, against a local server
// standing in for whisper.cpp's repository, with a generated multilingual model) is used without a restart: French,
// which only Whisper transcribes, is accepted once the model is installed and refused again once it is removed,
// while a session that started on the model keeps it until it ends. The same for a model in sherpa-onnx's format,
// installed from a local directory (`tolk models install whisper-onnx-NAME --from DIR`).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installOnnxSpeechModel } from '../../src/models/onnx-speech-models.js';
import { installSpeechModel, removeSpeechModel, whisperDir } from '../../src/models/speech-models.js';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';
import { TEST_SHAPE, writeWhisperModel } from '../helpers/whisper-model.js';
import { writeSherpaWhisperModel } from '../helpers/sherpa-whisper-model.js';
import { connectVoice, type Msg } from '../voice/voice-helpers.js';

const work = mkdtempSync(join(tmpdir(), 'tolk-voice-models-'));
// no whisper/ directory yet: installing creates it, and the server notices that too
const modelsDir = join(work, 'models');
const FRENCH = { source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000', source_language: 'fr', source_language_mode: 'fixed', target_languages: ['es'] };

/** 1.5 s of a modulated tone (speech to the energy detector) and 1 s of silence. */
function utterance(): Buffer {
  const one = new Int16Array(16000 * 2.5);
  for (let i = 0; i < 16000 * 1.5; i++) one[i] = Math.round(12000 * Math.sin(i / 5) * Math.sin(i / 700));
  return Buffer.from(one.buffer);
}

describe('speech models installed and removed while the server runs', () => {
  let ctx: TestContext;
  let account: TestAccount;
  let base: string;
  let server: Server;
  let repo: string;
  let sha1: string;

  before(async () => {
    const file = join(work, 'ggml-test.bin');
    writeWhisperModel(file, { ...TEST_SHAPE, nVocab: 51865 });
    const model = readFileSync(file);
    sha1 = createHash('sha1').update(model).digest('hex');
    server = createServer((req, res) => (req.url === '/repo/ggml-test.bin' ? res.writeHead(200, { 'content-length': model.length }).end(model) : res.writeHead(404).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    repo = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo/`;
    ctx = await createTestApp({ env: { TOLK_MODELS_DIR: modelsDir, TOLK_STT_ENGINE: 'auto' } });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    account = await createAccount(ctx);
  });
  after(async () => {
    await ctx.close();
    server.close();
    rmSync(work, { recursive: true, force: true });
  });

  const request = (body: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: body });
  const concluded = (messages: Msg[]) => messages.flatMap((m) => ((m.source_transcript_update?.concluded ?? []) as { language: string; text: string }[]));

  /** Installs a model, streams French on it through its removal; the session keeps it, new ones are refused. */
  async function frenchThroughRemoval(install: () => Promise<unknown>, remove: () => Promise<unknown>): Promise<void> {
    const before = await request(FRENCH);
    assert.equal(before.statusCode, 400, before.body);

    await install();
    const res = await waitFor('a French session once the Whisper model is installed', async () => {
      const r = await request(FRENCH);
      return r.statusCode === 200 ? r : null;
    });

    const client = await connectVoice(`${base}/v3/voice/realtime/connect?token=${encodeURIComponent(res.json().token)}`);
    await client.stream(utterance(), 16000, 300, false);
    // the first utterance is concluded on the model before it goes
    await client.waitFor((m) => (m.source_transcript_update?.concluded?.length ?? 0) > 0);
    await remove();
    await waitFor('French refused once the model is removed', async () => (await request(FRENCH)).statusCode === 400);
    // the running session still has its recogniser
    await client.stream(utterance(), 16000, 300);
    await client.closed;
    assert.ok(!client.messages.some((m) => m.error), JSON.stringify(client.messages.find((m) => m.error)));
    const segments = concluded(client.messages);
    assert.ok(segments.length >= 2, JSON.stringify(segments));
    assert.deepEqual([...new Set(segments.map((s) => s.language))], ['fr']);
  }

  it('accepts French once the model is installed, keeps a running session on it through its removal, then refuses French', async () => {
    await frenchThroughRemoval(
      () => installSpeechModel('test', { modelsDir, baseUrl: repo, models: { test: sha1 } }),
      () => removeSpeechModel(modelsDir, 'test'),
    );
  });

  it('the same for a sherpa-onnx model installed from a directory', async () => {
    const from = join(work, 'sherpa-onnx-whisper-test');
    const files = writeSherpaWhisperModel(from);
    // a multilingual vocabulary (one more text token), so that the model is offered for French
    appendFileSync(files.tokens, 'IQ== 50256\n');
    await frenchThroughRemoval(
      () => installOnnxSpeechModel(whisperDir(modelsDir), 'test', from),
      () => removeSpeechModel(modelsDir, 'onnx-test'),
    );
  });
});
