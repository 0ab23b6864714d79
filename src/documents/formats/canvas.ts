// @napi-rs/canvas, loaded on first use: its native library adds ~25 MiB to any process that loads it, and the HTTP
// thread imports the format list without ever drawing (only format threads do). A plain require keeps callers sync.
import { createRequire } from 'node:module';

export type CanvasModule = typeof import('@napi-rs/canvas');

const require = createRequire(import.meta.url);
let loaded: CanvasModule | undefined;

export function canvas(): CanvasModule {
  return (loaded ??= require('@napi-rs/canvas') as CanvasModule);
}
