/**
 * A fetch for third-party clients (openid-client's `customFetch`) that reaches the
 * test server whatever host name the URL has: `group.localhost` has no address on
 * every machine, and the company is chosen by the Host header, which global fetch
 * does not let a caller set. The request itself is the client's, byte for byte.
 */
import http from 'node:http';

export function hostFetch(port: number) {
  return (url: string | URL, init: { method?: string; headers?: Record<string, string> | Headers; body?: unknown; signal?: AbortSignal | null } = {}): Promise<Response> => {
    const u = new URL(String(url));
    const headers: Record<string, string> = {};
    new Headers(init.headers as HeadersInit | undefined).forEach((v, k) => (headers[k] = v));
    headers.host = u.host;
    let body: Buffer | undefined;
    if (typeof init.body === 'string') body = Buffer.from(init.body);
    else if (init.body instanceof URLSearchParams) {
      body = Buffer.from(init.body.toString());
      headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    } else if (init.body instanceof Uint8Array) body = Buffer.from(init.body);
    else if (init.body != null) throw new Error(`hostFetch: body of type ${typeof init.body} not supported`);
    if (body) headers['content-length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: init.method ?? 'GET', path: u.pathname + u.search, headers, signal: init.signal ?? undefined }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) for (const x of v) h.append(k, x);
            else if (v !== undefined) h.set(k, v);
          }
          const status = res.statusCode ?? 0;
          const nobody = status === 204 || status === 304 || (init.method ?? 'GET') === 'HEAD';
          const response = new Response(nobody ? null : Buffer.concat(chunks), { status, headers: h });
          // Response.url is read-only and empty for a constructed Response; clients may read it.
          Object.defineProperty(response, 'url', { value: u.href });
          resolve(response);
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  };
}
