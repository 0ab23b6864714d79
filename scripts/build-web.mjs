// Builds the web page: web/src/main.ts bundled and minified by esbuild into dist/web/app.js, with web/style.css and
// web/index.html beside it. Type checking is `tsc -p web` (npm run build runs both).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';

const out = 'dist/web';
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: 'web/src/main.ts', },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  outdir: out,
  logLevel: 'warning',
});
await build({ entryPoints: { app: 'web/style.css' }, bundle: true, minify: true, outdir: out, logLevel: 'warning' });
copyFileSync('web/index.html', `${out}/index.html`);
