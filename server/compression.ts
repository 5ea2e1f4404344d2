/**
 * What the server compresses per request, in one place for its two stacks: Fastify's
 * routes (@fastify/compress, server/spa.ts) and the embedded OpenID provider's Koa
 * answers (koa-compress, server/idp/provider.ts), which leave Fastify's hooks behind
 * (`reply.hijack()`). Issue 13: every JS/CSS/HTML/JSON answer over 1 kB is compressed
 * when the client accepts it.
 */

/**
 * Text worth compressing. `application/octet-stream` (case files, up to 2 GB,
 * mostly compressed formats already) is left alone, unlike the plug-ins' defaults.
 */
export const COMPRESSIBLE_TYPES = /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)xml(?:;|$)|javascript/u;

/** Smaller answers go as they are: the encoding's framing would eat the gain. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * The encodings Fastify's side offers, in its order of preference (Brotli, then gzip);
 * koa-compress offers the same by default once deflate and zstd are turned off.
 */
export const COMPRESSION_ENCODINGS = ['br', 'gzip'] as const;
