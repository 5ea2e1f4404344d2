/**
 * A TCP relay between the browser and the server for the resumable-upload journeys:
 * it counts the bytes the browser sends, cuts every connection on demand (a dropped
 * network), and can point at a new port (a restarted server) while the page keeps
 * its origin.
 */
import net from 'node:net';

export function relay(opts: { record?: boolean } = {}) {
  let target: number | null = null;
  let sent = 0;
  const pairs = new Set<[net.Socket, net.Socket]>();
  const connections: Buffer[][] = [];
  const server = net.createServer((client) => {
    if (target === null) return client.destroy();
    const upstream = net.connect(target, '127.0.0.1');
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    const mine: Buffer[] = [];
    if (opts.record) connections.push(mine);
    client.on('data', (d: Buffer) => {
      sent += d.length;
      if (opts.record) mine.push(d);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return {
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port))),
    point: (port: number | null) => (target = port),
    cut: () => {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    sent: () => sent,
    /** What the browser sent on each connection, when recording. */
    recorded: () => connections.map((c) => Buffer.concat(c)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

