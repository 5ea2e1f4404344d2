// Shared by the core/crypto tests.
import { expect } from 'vitest';
import { EnvelopeError } from '../../core/crypto/index.ts';

/** The reason an operation was refused with; fails the test when it was not refused with an EnvelopeError. */
export async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EnvelopeError);
  return (err as EnvelopeError).reason;
}
