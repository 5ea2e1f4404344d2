/**
 * The handler's sign-in and unlock fields take a password or a key recovery code
 * (src/handler/keys.ts): only the code's shape is read as a code, so a passphrase whose
 * letters happen to number 28 still signs in as a password.
 */
import { describe, expect, it } from 'vitest';
import { asRecoveryCode } from '../../src/handler/keys.ts';
import { makeRecoveryCode } from '../../core/crypto/handler.ts';

describe('a typed secret read as a key recovery code', () => {
  it('is the code as shown, with spaces, lower case or unbroken', () => {
    const code = makeRecoveryCode();
    expect(asRecoveryCode(code)).toBe(code);
    expect(asRecoveryCode(code.toLowerCase())).toBeDefined();
    expect(asRecoveryCode(code.replace(/-/g, ' '))).toBeDefined();
    expect(asRecoveryCode(code.replace(/-/g, ''))).toBeDefined();
    expect(asRecoveryCode(` ${code} `)).toBeDefined();
  });
  it('is not a passphrase of 28 letters in words', () => {
    expect(asRecoveryCode('a long administrator passphrase')).toBeUndefined();
    expect(asRecoveryCode('correct horse battery')).toBeUndefined();
  });
});
