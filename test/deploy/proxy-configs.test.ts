// The proxy configurations docs/deployment.md quotes (deploy/nginx.conf, deploy/haproxy.cfg) load on the proxies this
// machine has: `nginx -t` and `haproxy -c` on the files as shipped, with only what belongs to a site swapped in (a
// self-signed certificate, and free loopback ports, since `nginx -t` binds the ports it is given).
import { before, after, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/harness.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NGINX_CONF = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8');
const HAPROXY_CFG = readFileSync(join(ROOT, 'deploy/haproxy.cfg'), 'utf8');
const DEPLOYMENT_DOC = readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8');

/** The program's path when it runs here (Debian keeps nginx and haproxy in /usr/sbin, outside a user's PATH). */
function program(name: string): string | undefined {
  for (const path of [name, `/usr/sbin/${name}`]) {
    const probe = spawnSync(path, ['-v'], { timeout: 10_000 });
    if (!probe.error && probe.status === 0) return path;
  }
  return undefined;
}

const NGINX = program('nginx');
const HAPROXY = program('haproxy');
const OPENSSL = spawnSync('openssl', ['version'], { timeout: 10_000 }).status === 0;
const skipNginx = !NGINX ? 'nginx is not installed (Debian package nginx; scripts/setup.sh --test)' : !OPENSSL ? 'openssl is not installed' : false;
const skipHaproxy = !HAPROXY ? 'haproxy is not installed (Debian package haproxy; scripts/setup.sh --test)' : !OPENSSL ? 'openssl is not installed' : false;

let dir: string;
let cert: string;
let key: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tolk-proxy-'));
  [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  if (OPENSSL) {
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=api.example.com', '-keyout', key, '-out', cert], { timeout: 60_000 });
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** `text` with every match of `pattern` replaced, failing when there is none (the file changed under the test). */
function swap(text: string, pattern: RegExp, replacement: (match: string) => string): string {
  assert.match(text, pattern);
  return text.replace(pattern, replacement);
}

it('docs/deployment.md quotes deploy/nginx.conf and deploy/haproxy.cfg as they are', () => {
  assert.ok(DEPLOYMENT_DOC.includes(`\`\`\`nginx\n${NGINX_CONF}\`\`\``), 'the nginx block of docs/deployment.md is deploy/nginx.conf');
  assert.ok(DEPLOYMENT_DOC.includes(`\`\`\`haproxy\n${HAPROXY_CFG}\`\`\``), 'the HAProxy block of docs/deployment.md is deploy/haproxy.cfg');
  assert.doesNotMatch(NGINX_CONF, /^\s*http2\s+on\s*;/m, '`http2 on;` needs nginx 1.25.1; Debian 12 has 1.22');
});

it('nginx -t accepts deploy/nginx.conf (TLS, HTTP/2, the WebSocket map, both APIs)', { skip: skipNginx }, async () => {
  const ports = new Map<string, number>();
  let site = swap(NGINX_CONF, /ssl_certificate\s+\S+;/g, () => `ssl_certificate ${cert};`);
  site = swap(site, /ssl_certificate_key\s+\S+;/g, () => `ssl_certificate_key ${key};`);
  for (const port of ['443', '80']) ports.set(port, await freePort());
  site = swap(site, /listen (443|80)\b/g, (m) => `listen 127.0.0.1:${ports.get(m.split(' ')[1]!)}`);
  writeFileSync(join(dir, 'tolk-site.conf'), site);
  // nginx's own main file, as Debian's /etc/nginx/nginx.conf includes the sites in its http block
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')};`,
      'events {}',
      'http {',
      '  access_log off;',
      `  client_body_temp_path ${join(dir, 'body')};`,
      `  proxy_temp_path ${join(dir, 'proxy')};`,
      `  include ${join(dir, 'tolk-site.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const result = spawnSync(NGINX!, ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { encoding: 'utf8', timeout: 30_000 });
  const output = `${result.stdout}${result.stderr}`;
  assert.equal(result.status, 0, output);
  assert.match(output, /test is successful/);
  // nginx 1.25.1 and later warn that `listen ... http2` is deprecated, and load it all the same
  const warnings = output.split('\n').filter((l) => /\[(warn|emerg|alert|crit)\]/.test(l) && !/"listen \.\.\. http2" directive is deprecated/.test(l));
  assert.deepEqual(warnings, []);
});

it('haproxy -c accepts deploy/haproxy.cfg', { skip: skipHaproxy }, async () => {
  const pem = join(dir, 'haproxy.pem');
  writeFileSync(pem, readFileSync(cert, 'utf8') + readFileSync(key, 'utf8'));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, swap(HAPROXY_CFG, /crt \S+/g, () => `crt ${pem}`));
  const result = spawnSync(HAPROXY!, ['-c', '-f', cfg], { encoding: 'utf8', timeout: 30_000 });
  const output = `${result.stdout}${result.stderr}`;
  assert.equal(result.status, 0, output);
  assert.match(output, /Configuration file is valid/);
  assert.doesNotMatch(output, /\[(WARNING|ALERT)\]/);
});

it('scripts/setup.sh --test installs both proxies', () => {
  const setup = readFileSync(join(ROOT, 'scripts/setup.sh'), 'utf8');
  assert.match(setup, /WITH_TEST" = 1 \] && DEBIAN_PACKAGES\+=\([^)]*\bnginx\b/);
  assert.match(setup, /WITH_TEST" = 1 \] && DEBIAN_PACKAGES\+=\([^)]*\bhaproxy\b/);
});
