// The engine of the installed speech model, with stand-in engines: a model installed while running is loaded and then
// serves new sessions, one that cannot be loaded is ignored until its file changes, and a replaced engine is closed
// only once the last session on it is released.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/lib/logger.js';
import type { SpeechRecognizer } from '../../src/voice/stt/engine.js';
import { InstalledSpeechEngine, type LoadableEngine } from '../../src/voice/stt/installed-engine.js';

const work = mkdtempSync(join(tmpdir(), 'tolk-installed-stt-'));
after(() => rmSync(work, { recursive: true, force: true }));

interface Fake extends LoadableEngine {
  closed: boolean;
}

function fake(name: string, loads = true): Fake {
  const recognizer: SpeechRecognizer = { write: async () => [], finish: async () => [], release: () => {} };
  return {
    name,
    languages: new Set(['en']),
    detectsLanguage: false,
    closed: false,
    load: async () => {
      if (!loads) throw new Error('cannot load');
    },
    createRecognizer: async () => recognizer,
    async close() {
      this.closed = true;
    },
  };
}

describe('InstalledSpeechEngine', () => {
  it('switches to a model installed while running, ignores one it cannot load, and closes a replaced engine after its last session', async () => {
    const dir = join(work, 'models', 'whisper');
    const made: Fake[] = [];
    const engine = new InstalledSpeechEngine({
      mode: 'auto',
      dir,
      logger: silentLogger,
      rescanIntervalMs: 0,
      // a file holding "broken" is a model the runtime cannot load
      whisper: (path) => {
        const f = fake(`whisper:${path.split('/').pop()}`, !path.includes('broken'));
        made.push(f);
        return f;
      },
      fallback: () => fake('fallback'),
    });
    try {
      assert.equal(engine.name, 'fallback');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'ggml-a.bin'), 'a');
      await engine.rescan();
      assert.equal(engine.name, 'whisper:ggml-a.bin');
      const session = await engine.createRecognizer('en');

      // sorted first, but not loadable: the current engine stays, and the file is not tried again while unchanged
      writeFileSync(join(dir, 'ggml-0broken.bin'), 'x');
      await engine.rescan();
      assert.equal(engine.name, 'whisper:ggml-a.bin');
      const tried = made.length;
      await engine.rescan();
      assert.equal(made.length, tried);
      rmSync(join(dir, 'ggml-0broken.bin'));

      // removed: new sessions get the fallback; the running one keeps its engine until released
      rmSync(join(dir, 'ggml-a.bin'));
      await engine.rescan();
      assert.equal(engine.name, 'fallback');
      const a = made.find((m) => m.name === 'whisper:ggml-a.bin')!;
      assert.equal(a.closed, false);
      session.release();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(a.closed, true);
      assert.ok(made.filter((m) => m.name.includes('broken')).every((m) => m.closed));
    } finally {
      await engine.close();
    }
  });

  it('whisper mode: no language while no model is installed', async () => {
    const dir = join(work, 'w2');
    mkdirSync(dir);
    writeFileSync(join(dir, 'ggml-a.bin'), 'a');
    const engine = new InstalledSpeechEngine({ mode: 'whisper', dir, logger: silentLogger, rescanIntervalMs: 0, whisper: () => fake('whisper') });
    try {
      assert.equal(engine.name, 'whisper');
      rmSync(join(dir, 'ggml-a.bin'));
      await engine.rescan();
      assert.equal(engine.languages.size, 0);
      await assert.rejects(engine.createRecognizer('en'), /no speech model/);
    } finally {
      await engine.close();
    }
  });
});
