// Socket lifecycle the routes rely on: a request that came in as an HTTP upgrade but was answered as plain HTTP closes
// its socket; and one-time deliveries (document downloads) learn whether the client really received the response.
import fp from 'fastify-plugin';
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** How long an answered upgrade request's socket may take to close after our FIN before it is destroyed. */
const UPGRADE_LINGER_MS = 2_000;

export interface DeliveryCallbacks {
  /** The client received the whole response. */
  delivered(): Promise<void>;
  /** It did not (reset, error, closed before the last byte): the delivery may be retried. */
  lost(): Promise<void>;
}

/** Deliveries whose last byte left this server, waiting for the client to prove it read them. */
const pending = new WeakMap<object, () => Promise<void>>();

/**
 * Calls `delivered` once the client has received the response, `lost` otherwise. The response's `finish` only says the
 * bytes reached this host's kernel; the client has them when it sends its next request on the connection (HTTP/1.1
 * clients read a response before reusing the connection) or when the connection ends cleanly. A client that drops the
 * connection with data unread resets it (an error), so the delivery counts as lost.
 */
export function onDelivered(request: FastifyRequest, reply: FastifyReply, callbacks: DeliveryCallbacks): void {
  const socket: object = request.raw.socket ?? request.raw;
  let settled = false;
  const settle = (outcome: 'delivered' | 'lost', why?: string): Promise<void> => {
    if (settled) return Promise.resolve();
    settled = true;
    pending.delete(socket);
    // an operator reading a download that was not charged can tell why
    if (outcome === 'lost') request.log.info({ why }, 'delivery not confirmed: the result stays downloadable, uncharged');
    return (outcome === 'delivered' ? callbacks.delivered() : callbacks.lost()).catch((err) =>
      request.log.error({ err }, `document ${outcome === 'delivered' ? 'completion' : 'release'} failed`),
    );
  };
  const res = reply.raw;
  // The server does not close the connection after this response (even when the request asked it to): the client's
  // own close, clean or reset, is the signal; a server-side close would say nothing about what the client read.
  res.shouldKeepAlive = true;
  let finished = false;
  res.once('finish', () => {
    finished = true;
    // an error answered instead (the stream failed before the first byte)
    if (res.statusCode >= 300) {
      void settle('lost', 'error answered');
      return;
    }
    // No real transport (inject): nothing more can be learnt than that the response was written.
    if (!(socket instanceof Socket) || socket.destroyed) {
      void settle(socket instanceof Socket && socket.errored ? 'lost' : 'delivered', 'socket error');
      return;
    }
    // Through a trusted proxy the peer is the proxy, which reads a response as it arrives; proxies also reset idle
    // connections (HAProxy does), which from a client would mean a download left unread. So there, any close counts.
    // (`ips` lists the peer and the forwarded addresses it is trusted for; undefined when no proxy is trusted)
    const viaProxy = (request.ips?.length ?? 1) > 1;
    const onClose = (hadError: boolean) =>
      void settle((hadError || socket.errored) && !viaProxy ? 'lost' : 'delivered', `connection closed with an error (${String(socket.errored)})`);
    // Settled by the next request: the listener goes, so many downloads on one connection do not pile them up.
    pending.set(socket, () => {
      socket.off('close', onClose);
      return settle('delivered');
    });
    socket.once('close', onClose);
  });
  res.once('close', () => {
    if (!finished) void settle('lost', 'closed before the last byte');
  });
}

/** Node sets `upgrade` on requests it handed to the server's 'upgrade' listeners rather than to its HTTP handler. */
const cameAsUpgrade = (request: FastifyRequest) => (request.raw as { upgrade?: boolean }).upgrade === true;

// One hook in callback style: it runs on every request, and an async hook costs a promise each time.
async function sockets(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    // A request with `Connection: Upgrade` reaches a route through the server's 'upgrade' event, which detaches the
    // socket from the HTTP server: nothing would ever close it once the plain HTTP answer is sent. (Handled here
    // rather than in onSend/onResponse hooks, which every request would then run.)
    if (cameAsUpgrade(request)) closeAfterAnswer(request, reply);
    // The client's next request on a connection settles the delivery before it runs (so it sees the usage charged).
    const settle = pending.get(request.raw.socket);
    if (settle) void settle().then(() => done(), done);
    else done();
  });
}

/** An upgrade request answered as plain HTTP: `Connection: close`, and its socket ended once the answer is out. */
function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('connection', 'close');
  reply.raw.once('finish', () => {
    const socket = request.raw.socket;
    if (!socket.destroyed) {
      socket.end();
      setTimeout(() => socket.destroy(), UPGRADE_LINGER_MS).unref();
    }
  });
}

export const socketsPlugin = fp(sockets, { name: 'tolk-sockets' });
