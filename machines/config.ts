/**
 * Where the SPA sends its calls when /config/config.json cannot be read (spec §7,
 * §8). The server's Content-Security-Policy allows this origin in `connect-src`
 * and `img-src`, so the fallback can actually work; both read it from here.
 * Kept apart from schema.ts so that the landing page does not load valibot for it.
 */
export const FALLBACK_API_BASE_URL = 'http://localhost:9000';
