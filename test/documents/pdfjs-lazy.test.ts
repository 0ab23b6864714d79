// pdf.js's legacy build replaces builtins process-wide (core-js: Array.prototype.push, JSON.parse, ...), which made
// every request of the HTTP thread slower: the HTTP side (services, app) must not load it; a PDF read still works.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

describe('pdf.js is loaded on first use', () => {
  it('importing the services and the app leaves the builtins alone; reading a PDF loads it', async () => {
    const script = `
      const builtins = () => [Array.prototype.push, JSON.parse, Function.prototype.toString, Promise.withResolvers];
      const before = builtins();
      await import(${JSON.stringify(pathToFileURL(path.join(src, 'services.js')).href)});
      await import(${JSON.stringify(pathToFileURL(path.join(src, 'app.js')).href)});
      const untouched = builtins().every((f, i) => f === before[i]);
      const { pdfjs } = await import(${JSON.stringify(pathToFileURL(path.join(src, 'documents', 'formats', 'pdf', 'pdfjs.js')).href)});
      const { getDocument } = await pdfjs();
      console.log(JSON.stringify({ untouched, loaded: typeof getDocument === 'function' }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').pop()!), { untouched: true, loaded: true });
  });
});
