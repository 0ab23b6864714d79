// Records every file a Node process loads (ES modules through a resolve hook, CommonJS and native addons through
// Module._resolveFilename) into the file named by TOLK_TRACE_FILE, one path a line. Used with --import (also in
// NODE_OPTIONS, so child processes and worker threads are traced too) by scripts/make-device-bundle.mjs, which copies
// only what a benchmark really loads.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';


const out = process.env.TOLK_TRACE_FILE;
if (out) {
  const Module = createRequire(import.meta.url)('node:module');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function traced(...args) {
    const file = resolve.apply(this, args);
    if (file.startsWith('/')) appendFileSync(out, `${file}\n`);
    return file;
  };
  register(new URL('./trace-loads-hooks.mjs', import.meta.url), { data: { out } });
}
