/**
 * The one HTTP client of the SPA. Base URL from /config/config.json (spec §7,
 * src/api/config.ts). Public calls name the company with `X-Company-Host` (the page
 * host name); private calls carry a bearer token when a token provider is given.
 * Failures are `ApiError`s with the HTTP status, or 'no status' when none came back
 * (network down, server stopped). A 401 or 403 anywhere calls `onUnauthorized`,
 * which the app wires to navigate to / (spec §6, §8).
 */
export type ApiStatus = number | 'no status';

export class ApiError extends Error {
  readonly status: ApiStatus;
  readonly code?: string;
  /** A 429's Retry-After in seconds, when the server sent one. */
  readonly retryAfterSeconds?: number;
  constructor(status: ApiStatus, message: string, code?: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface ApiClientOptions {
  baseUrl: string;
  /** The page host name, sent as `X-Company-Host` on public calls. */
  companyHost: string;
  onUnauthorized?: (status: 401 | 403) => void;
  /** Bearer token for /api/private/** calls. */
  getAccessToken?: () => string | null | undefined | Promise<string | null | undefined>;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  method?: string;
  /** JSON-serialised unless it is FormData, Blob or a string. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ApiClient {
  readonly baseUrl: string;
  /** Absolute URL of an API path, e.g. for `<img src>`. */
  url(path: string): string;
  /** Sends a request; resolves with the Response only for 2xx, otherwise throws ApiError. */
  request(path: string, options?: RequestOptions): Promise<Response>;
  /** `request` and parse JSON (null for 204/empty). */
  json<T>(path: string, options?: RequestOptions): Promise<T>;
  /** A client sharing this one's settings with another token provider (private area). */
  withAccessToken(getAccessToken: ApiClientOptions['getAccessToken']): ApiClient;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  const url = (path: string) => `${baseUrl}${path.startsWith('/') ? path : `/${path}`}`;

  async function request(path: string, req: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (path.startsWith('/api/public/')) headers['x-company-host'] = options.companyHost;
    if (path.startsWith('/api/private/') && options.getAccessToken) {
      const token = await options.getAccessToken();
      if (token) headers.authorization = `Bearer ${token}`;
    }
    let body: BodyInit | undefined;
    if (req.body instanceof FormData || req.body instanceof Blob || typeof req.body === 'string') {
      body = req.body;
    } else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    let res: Response;
    try {
      res = await doFetch(url(path), {
        method: req.method ?? 'GET',
        headers,
        body,
        signal: req.signal,
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
    } catch (err) {
      if ((err as Error)?.name === 'AbortError') throw err;
      throw new ApiError('no status', `No answer from the server for ${path}`);
    }
    if (res.ok) return res;
    if (res.status === 401 || res.status === 403) options.onUnauthorized?.(res.status);
    let code: string | undefined;
    let message = `HTTP ${res.status} for ${path}`;
    try {
      const data = (await res.json()) as { error?: { code?: string; message?: string } };
      code = data.error?.code;
      if (data.error?.message) message = data.error.message;
    } catch {
      // not JSON: keep the generic message
    }
    const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
    throw new ApiError(res.status, message, code, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }

  async function json<T>(path: string, req?: RequestOptions): Promise<T> {
    const res = await request(path, req);
    const text = await res.text();
    return (text ? JSON.parse(text) : null) as T;
  }

  return {
    baseUrl,
    url,
    request,
    json,
    withAccessToken: (getAccessToken) => createApiClient({ ...options, getAccessToken }),
  };
}
