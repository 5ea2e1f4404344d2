/**
 * An answer given before the request's body was read (a 413 on the declared length,
 * a refused token, a spent budget, a wrong tus offset; issue 36, finding 6c). If the
 * socket is closed while the client is still sending, the client's next write hits a
 * reset (EPIPE, ECONNRESET) and it may never see the answer: Node closes the socket
 * once the answer is out when either side asked for `Connection: close`, and Fastify
 * asks for it after every body-parser error.
 *
 * So the rest of such a body is read and thrown away before the answer goes, up to
 * DRAIN_MAX_BYTES and DRAIN_MAX_MS; the socket then closes with nothing unread, and
 * the client reads the answer. A body declared larger than the bound is not waited
 * for: the answer goes at once and the connection is closed (a client sending
 * gigabytes to a refused upload should not make the server read them).
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** A few megabytes: room for a refused JSON body many times the 1 MB limit, or a refused message's files. */
export const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
/** A client that sends slower than this is cut off; the answer goes anyway. */
export const DRAIN_MAX_MS = 10_000;

function hasBodyLeft(raw: IncomingMessage): boolean {
  if (raw.complete || raw.destroyed || raw.readableEnded) return false;
  return raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
}

/** Reads and drops what is left of the body; true once all of it came, false at a bound or a cut connection. */
export function drainBody(raw: IncomingMessage, maxBytes = DRAIN_MAX_BYTES, maxMs = DRAIN_MAX_MS): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      raw.off('error', onClose);
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), maxMs);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onClose);
    raw.once('error', onClose);
    raw.resume();
  });
}

/** Registered on the root instance, so it runs before every plug-in's own onSend hooks. */
export function drainEarlyAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const raw = req.raw;
    if (!hasBodyLeft(raw)) return payload;
    const declared = Number(raw.headers['content-length']);
    const drained = Number.isFinite(declared) && declared > DRAIN_MAX_BYTES ? false : await drainBody(raw);
    // Past the bound the rest is not read: the connection cannot be used for another request.
    if (!drained) reply.header('connection', 'close');
    return payload;
  });
}
