// Graceful shutdown closes an open voice connection with 1001 Going Away (not a bare close without a code).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { authHeaders, createAccount, createTestApp } from '../helpers/harness.js';
import { connectVoice } from '../voice/voice-helpers.js';

it('closing the app ends an open voice connection with 1001', async () => {
  const ctx = await createTestApp();
  try {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const account = await createAccount(ctx);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v3/voice/realtime',
      headers: authHeaders(account),
      payload: { source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const port = (ctx.app.server.address() as AddressInfo).port;
    const client = await connectVoice(`ws://127.0.0.1:${port}/v3/voice/realtime/connect?token=${res.json().token}`);
    await ctx.app.close();
    assert.equal((await client.closed).code, 1001);
  } finally {
    await ctx.close();
  }
});
