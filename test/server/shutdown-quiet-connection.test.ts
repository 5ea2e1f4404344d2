/**
 * Stopping the server does not wait on a client that opened a connection and sent
 * nothing (a browser's preconnect, a client gone quiet): Node does not count such a
 * connection as idle, and the stop used to wait for it for minutes.
 */
import net from 'node:net';
import { expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.ts';

it('stops within moments while a client holds a connection without a request', async () => {
  const server = await startTestServer({});
  const socket = net.connect(server.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  const started = Date.now();
  await server.stop();
  expect(Date.now() - started).toBeLessThan(10_000);
  await closed;
  await server.cleanup();
}, 60_000);
