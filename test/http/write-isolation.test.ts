// Issue 17 item 2 over HTTP: /v2/write/correct with the real Hunspell. A request of 8 KB of long non-words ends with
// a clear 504 at the deadline instead of holding a checker for a minute, and a client that hangs up releases its
// checker (the process working for it is killed) without waiting for that deadline.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { prng } from '../helpers/prng.js';
import { HUNG_TEST_MS, waitFor } from '../helpers/wait.js';

const DEADLINE_MS = 3000;
let ctx: TestContext;
let hostile: TestAccount;
let normal: TestAccount;

before(async () => {
  ctx = await createTestApp({ engines: [], env: { TOLK_ENGINE_TIMEOUT_MS: String(DEADLINE_MS) } });
  [hostile, normal] = await Promise.all([createAccount(ctx), createAccount(ctx)]);
});
after(() => ctx?.close());

function nonWords(seed: number): string {
  const random = prng(seed);
  const letters = 'qwrtzpsdfghjklxcvbnm';
  let s = '';
  while (s.length < 8000) s += `${Array.from({ length: 30 + random(30) }, () => letters[random(letters.length)]).join('')} `;
  return s.trim();
}

/** Hunspell processes this test process started (children named hunspell, stdbuf's included). */
function hunspellChildren(): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat)!;
      if (comm === 'hunspell' && Number(rest!.split(' ')[1]) === process.pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU time the processes have used so far, in clock ticks (user + system); a process gone meanwhile adds nothing. */
function cpuTicks(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks;
}

const correct = (account: TestAccount, text: string) =>
  ctx.app.inject({ method: 'POST', url: '/v2/write/correct', headers: authHeaders(account), payload: { text: [text], target_lang: 'en-US' } });

describe('/v2/write/correct under hostile input', () => {
  it('answers 504 at the deadline for 8 KB of long non-words; the next request is served', async () => {
    const res = await correct(hostile, nonWords(1));
    assert.equal(res.statusCode, 504, res.body);
    assert.equal(res.json().code, 'engine_timeout');
    assert.match(res.json().message, /Spelling correction did not finish in time/);
    assert.ok(res.headers['retry-after']);
    const ok = await correct(normal, 'Teh results were good.');
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().improvements[0].text, 'The results were good.');
  });

  it('a client that hangs up releases its checker: the process working for it is killed', async () => {
    // an app whose deadline never comes during the test: a checker that ends was ended by the hang-up
    const patient = await createTestApp({ engines: [], env: { TOLK_ENGINE_TIMEOUT_MS: String(HUNG_TEST_MS * 2) } });
    try {
      const account = await createAccount(patient);
      const post = (text: string) =>
        patient.app.inject({ method: 'POST', url: '/v2/write/correct', headers: authHeaders(account), payload: { text: [text], target_lang: 'en-US' } });
      const others = new Set(hunspellChildren());
      assert.equal((await post('Warm up.')).statusCode, 200);
      await patient.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = patient.app.server.address() as { port: number };
      // this app's checkers only (they start on first use)
      const before = hunspellChildren().filter((pid) => !others.has(pid));
      assert.ok(before.length > 0);
      // checkers start loading their dictionaries on first use: the count below starts once they are quiet, so CPU
      // time they use afterwards is this request's
      await waitFor('the checkers to be idle', async () => {
        const ticks = cpuTicks(before);
        await sleep(300);
        return cpuTicks(before) === ticks;
      });
      const idle = cpuTicks(before);
      const body = JSON.stringify({ text: [nonWords(2)], target_lang: 'en-US' });
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      const headers = authHeaders(account);
      socket.write(
        `POST /v2/write/correct HTTP/1.1\r\nHost: ${headers.host}\r\nAuthorization: ${headers.authorization}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await waitFor('a checker to work on the request', () => cpuTicks(before) > idle);
      socket.destroy();
      const killed = await waitFor('a checker to be killed', () => {
        const now = new Set(hunspellChildren());
        const ended = before.filter((pid) => !now.has(pid));
        return ended.length > 0 && ended;
      });
      assert.ok(killed.length > 0, 'a checker process was killed when the client went away');
    } finally {
      await patient.close();
    }
  });
});
