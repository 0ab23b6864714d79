// The proxy configurations docs/deployment.md quotes (deploy/nginx.conf, deploy/haproxy.cfg) load on the proxies this
// machine has: `nginx -t` and `haproxy -c` on the files as shipped, with only what belongs to a site swapped in (a
// self-signed certificate, and free loopback ports, since `nginx -t` binds the ports it is given); and nginx running
// that file does what the docs say: both APIs over HTTP/2, a 100 MB upload, the voice WebSocket.
import { before, after, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createServer, get as httpGet, type IncomingMessage, type Server } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import tls from 'node:tls';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

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

/**
 * deploy/nginx.conf as a site of a minimal nginx main file in the temp folder: the generated certificate, free
 * loopback ports for 443 and 80, and where given, the Tolk ports (8080 paid, 8081 free) replaced by others.
 */
async function nginxFiles(upstreams?: Record<'8080' | '8081', number>): Promise<{ config: string; https: number; http: number }> {
  const [https, http] = [await freePort(), await freePort()];
  let site = swap(NGINX_CONF, /ssl_certificate\s+\S+;/g, () => `ssl_certificate ${cert};`);
  site = swap(site, /ssl_certificate_key\s+\S+;/g, () => `ssl_certificate_key ${key};`);
  site = swap(site, /listen (443|80)\b/g, (m) => `listen 127.0.0.1:${m.endsWith('443') ? https : http}`);
  if (upstreams) site = swap(site, /proxy_pass http:\/\/127\.0\.0\.1:(8080|8081);/g, (m) => `proxy_pass http://127.0.0.1:${upstreams[m.includes('8080') ? '8080' : '8081']};`);
  writeFileSync(join(dir, 'tolk-site.conf'), site);
  // nginx's own main file, as Debian's /etc/nginx/nginx.conf includes the sites in its http block
  const config = join(dir, 'nginx.conf');
  writeFileSync(
    config,
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
  return { config, https, http };
}

it('nginx -t accepts deploy/nginx.conf (TLS, HTTP/2, the WebSocket map, both APIs)', { skip: skipNginx }, async () => {
  const { config } = await nginxFiles();
  const result = spawnSync(NGINX!, ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', config], { encoding: 'utf8', timeout: 30_000 });
  const output = `${result.stdout}${result.stderr}`;
  assert.equal(result.status, 0, output);
  assert.match(output, /test is successful/);
  // nginx 1.25.1 and later warn that `listen ... http2` is deprecated, and load it all the same
  const warnings = output.split('\n').filter((l) => /\[(warn|emerg|alert|crit)\]/.test(l) && !/"listen \.\.\. http2" directive is deprecated/.test(l));
  assert.deepEqual(warnings, []);
});

/** A stand-in for Tolk's two listeners: answers with what it received, and echoes what a WebSocket upgrade sends. */
async function backend(name: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name, url: req.url, bytes, headers: req.headers })));
  });
  server.on('upgrade', (req, socket: Socket) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Backend: ${name}\r\n\r\n`);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

/** One HTTP/2 request over TLS to nginx, named for `host`; the answer's status, protocol and JSON body. */
async function http2Request(port: number, host: string, method: string, body?: Buffer): Promise<{ status: number; json: Record<string, any> }> {
  const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, servername: host });
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ':method': method, ':path': '/v2/translate?x=1', ':authority': host });
      let status = 0;
      let data = '';
      stream.on('response', (headers) => {
        status = Number(headers[':status']);
        assert.equal(session.alpnProtocol, 'h2', 'HTTP/2 negotiated');
      });
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (data += d));
      stream.on('end', () => resolve({ status, json: JSON.parse(data) as Record<string, any> }));
      stream.on('error', reject);
      stream.end(body);
    });
  } finally {
    session.close();
  }
}

it('nginx with deploy/nginx.conf serves both APIs over HTTP/2, passes a 100 MB upload and the voice WebSocket', { skip: skipNginx }, async () => {
  const [paid, free] = [await backend('paid'), await backend('free')];
  const { config, https, http } = await nginxFiles({ '8080': paid.port, '8081': free.port });
  const nginx = spawn(NGINX!, ['-p', dir, '-e', join(dir, 'error.log'), '-c', config, '-g', 'daemon off; master_process off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  nginx.stderr.on('data', (d) => (stderr += d));
  try {
    await waitFor('nginx to listen', async () => {
      if (nginx.exitCode !== null) assert.fail(`nginx exited: ${stderr}`);
      return fetch(`http://127.0.0.1:${http}/`, { redirect: 'manual' }).then((r) => r.status, () => 0);
    });
    // plain HTTP: redirected to HTTPS on the same name
    const redirect = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet({ host: '127.0.0.1', port: http, path: '/v2/usage', headers: { host: 'api.example.com' } }, resolve).on('error', reject),
    );
    redirect.resume();
    assert.equal(redirect.statusCode, 301);
    assert.equal(redirect.headers.location, 'https://api.example.com/v2/usage');
    // HTTP/2 to each name reaches its listener, with the forwarded scheme and the original host
    for (const [host, name] of [['api.example.com', 'paid'], ['api-free.example.com', 'free']]) {
      const { status, json } = await http2Request(https, host!, 'GET');
      assert.equal(status, 200);
      assert.equal(json.name, name);
      assert.equal(json.url, '/v2/translate?x=1');
      assert.equal(json.headers['x-forwarded-proto'], 'https');
      assert.equal(json.headers.host, host);
      assert.equal(json.headers['x-forwarded-for'], '127.0.0.1');
    }
    // an upload of the largest document size passes whole (client_max_body_size)
    const upload = await http2Request(https, 'api.example.com', 'POST', Buffer.alloc(100 * 1024 * 1024, 120));
    assert.equal(upload.status, 200);
    assert.equal(upload.json.bytes, 100 * 1024 * 1024);
    // the voice WebSocket: the upgrade reaches Tolk and the stream then flows both ways
    const socket = tls.connect({ host: '127.0.0.1', port: https, servername: 'api.example.com', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    try {
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      socket.write('GET /v3/voice/realtime/connect HTTP/1.1\r\nHost: api.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      await waitFor('the 101 answer', () => received.includes('\r\n\r\n'));
      assert.match(received, /^HTTP\/1\.1 101 /);
      assert.match(received, /X-Backend: paid/i);
      received = '';
      socket.write('a frame, echoed');
      await waitFor('the echo through the tunnel', () => received === 'a frame, echoed');
    } finally {
      socket.destroy();
    }
  } finally {
    nginx.kill('SIGKILL');
    paid.server.close();
    free.server.close();
  }
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
