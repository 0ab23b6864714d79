// Engine work for a request stops when its client goes away before the answer is sent.
import type { FastifyReply } from 'fastify';

/** Aborts when the response closes unfinished (the client hung up or the connection broke). */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
