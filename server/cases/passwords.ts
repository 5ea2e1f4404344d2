/**
 * Reporters' follow-account passwords: Argon2id (the library's default algorithm;
 * its `Algorithm` const enum is left out, STACK.md) with a server-side pepper given
 * as Argon2's secret, so a stolen database alone cannot be brute-forced offline.
 * Parameters follow OWASP's first Argon2id recommendation (19 MiB, 2 passes).
 */
import { createHmac, hkdfSync } from 'node:crypto';
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
  private readonly saltKey: Buffer;
  constructor(private readonly pepper: Uint8Array) {
    // From the pepper, not the master key: a look-alike salt must not change when the master key rotates.
    this.saltKey = Buffer.from(hkdfSync('sha256', pepper, Buffer.alloc(0), 'wb:reporter-salt', 32));
  }

  /**
   * The salt answered for a case number no case of `companyId` has (issue 37): 16
   * bytes of HMAC under a key of the server's, so the same unknown number always gets
   * the same salt (as a real case would) and no one without the key can tell it from
   * a real one.
   */
  lookAlikeSalt(companyId: string, caseNumber: string): Buffer {
    return createHmac('sha256', this.saltKey).update(`${companyId}\0${caseNumber}`).digest().subarray(0, 16);
  }

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
