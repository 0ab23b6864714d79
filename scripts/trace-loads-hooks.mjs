// The ES-module half of scripts/trace-loads.mjs: a resolve hook (it runs in the loader's own thread) appending each
// resolved file to the trace file.
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let out;
export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (out && result.url.startsWith('file:')) appendFileSync(out, `${fileURLToPath(result.url)}\n`);
  return result;
}
