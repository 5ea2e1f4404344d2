/** Shared by the benches (bench/run.ts lists no name starting with `_`). */
import net from 'node:net';

/** A port free on 127.0.0.1 at the moment of asking, for a server the bench starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
