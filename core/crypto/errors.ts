/**
 * The one error the envelope module throws for anything it refuses to open or use.
 *
 * Invariant: a caller can always tell a refused envelope (EnvelopeError, with a reason
 * it may show as "this message could not be opened") from a bug (any other error). The
 * reason names what was found, never a secret or plaintext.
 */
export type EnvelopeReason =
  /** Not this module's format: wrong version byte, wrong magic, too short, bad encoding. */
  | 'format'
  /** The tag did not verify: altered bytes, the wrong key, the wrong context, chunks reordered. */
  | 'authentication'
  /** A file stream ended before its final chunk (cut at a chunk boundary or mid-chunk). */
  | 'truncated'
  /** Bytes follow a file stream's final chunk. */
  | 'extended'
  /** A key of the wrong kind or size, or a recipient key id that is not the key's. */
  | 'key'
  /** Key-derivation parameters unknown, or outside the bounds the module accepts. */
  | 'kdf';

export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
  constructor(
    readonly reason: EnvelopeReason,
    message: string = reason,
  ) {
    super(message);
  }
}
