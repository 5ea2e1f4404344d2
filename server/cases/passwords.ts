/**
 * Reporters' follow-account passwords: Argon2id (the library's default algorithm;
 * its `Algorithm` const enum is left out, STACK.md) with a server-side pepper given
 * as Argon2's secret, so a stolen database alone cannot be brute-forced offline.
 * Parameters follow OWASP's first Argon2id recommendation (19 MiB, 2 passes).
 */
import { hash, verify } from '@node-rs/argon2';

const PARAMS = { memoryCost: 19456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;

export async function hashPassword(password: string, pepper: Uint8Array): Promise<string> {
  return hash(password, { ...PARAMS, secret: pepper });
}

/** True when `password` matches `passwordHash`; false for a wrong password or a malformed hash. */
export async function verifyPassword(passwordHash: string, password: string, pepper: Uint8Array): Promise<boolean> {
  try {
    return await verify(passwordHash, password, { secret: pepper });
  } catch {
    return false;
  }
}

/** The pepper bound in, as AppContext.passwords. */
export class Passwords {
  private dummy?: Promise<string>;
  constructor(private readonly pepper: Uint8Array) {}

  hash(password: string): Promise<string> {
    return hashPassword(password, this.pepper);
  }

  verify(passwordHash: string, password: string): Promise<boolean> {
    return verifyPassword(passwordHash, password, this.pepper);
  }

  /**
   * Spends the same time as a real check and answers false: for an unknown case
   * number, so that it cannot be told apart from a wrong password.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummy ??= hashPassword('not-a-password', this.pepper);
    await verifyPassword(await this.dummy, password, this.pepper);
    return false;
  }
}
