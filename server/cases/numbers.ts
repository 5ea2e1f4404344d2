import { randomBytes } from 'node:crypto';

const LOW = 10n ** 15n;
const SPAN = 9n * 10n ** 15n; // 16-digit numbers without a leading zero: [10^15, 10^16)
const LIMIT = (1n << 64n) - ((1n << 64n) % SPAN);

/**
 * A case number: 16 decimal digits from the operating system's cryptographic
 * random source, uniform (rejection sampling, no modulo bias), about 53 bits. It
 * never starts with 0, so spreadsheets and phone keypads keep all 16 digits.
 */
export function newCaseNumber(): string {
  for (;;) {
    const x = randomBytes(8).readBigUInt64BE();
    if (x < LIMIT) return (LOW + (x % SPAN)).toString();
  }
}
