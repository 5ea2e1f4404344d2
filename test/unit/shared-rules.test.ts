/**
 * Rules the browser and the server must apply alike (issue 17 §1): the Danish
 * number, the files' magic bytes, and the config fallback the page's CSP allows.
 */
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import {
  contentMatches,
  headMatches,
  internationalPhoneSchema,
  keepAllowedFiles,
  LIMITS,
  phoneOrEmailSchema,
  whistleblowerSchema,
} from '../../machines/schema.ts';
import { headMatches as serverHeadMatches, ContentSniffer } from '../../server/files/sniff.ts';
import { SECURITY_HEADERS } from '../../server/app.ts';
import { FALLBACK_API_BASE_URL } from '../../src/api/config.ts';

const bytes = (...xs: Array<number | string>) =>
  new Uint8Array(xs.flatMap((x) => (typeof x === 'string' ? [...x].map((c) => c.charCodeAt(0)) : [x])));
const PNG = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
const PDF = bytes('%PDF-1.7\n');

describe('Danish phone: exactly +45 and 8 digits (spec §5, §9)', () => {
  it.each(['+451234567', '+45123456789', '+45 1234567', '+45abcdefgh'])('refuses %s everywhere', (n) => {
    expect(v.is(internationalPhoneSchema, n)).toBe(false);
    expect(v.is(phoneOrEmailSchema, n)).toBe(false);
    expect(v.is(whistleblowerSchema, { name: 'A', email: 'a@example.com', phone: n })).toBe(false);
  });
  it('tells a +45 number of the wrong length the Danish rule, other numbers that they are not valid', () => {
    const issue = (n: string) => v.safeParse(internationalPhoneSchema, n).issues?.[0]?.message;
    expect(issue('+451234567')).toBe('validation.phoneDanish');
    expect(issue('+45123456789')).toBe('validation.phoneDanish');
    expect(issue('+4612')).toBe('validation.phone');
    expect(issue('+4512345678')).toBeUndefined();
  });
  it.each(['+4512345678', '+4670123456', '+447911123456', '+48501234567'])('takes %s', (n) => {
    expect(v.is(internationalPhoneSchema, n)).toBe(true);
    expect(v.is(phoneOrEmailSchema, n)).toBe(true);
  });
});

describe('file content: one magic-byte rule for the browser and the server', () => {
  it('the server sniffs with the shared rule, not a copy', () => {
    expect(serverHeadMatches).toBe(headMatches);
  });

  it('names a file whose bytes do not fit its extension', () => {
    expect(contentMatches('scan.pdf', PDF, true)).toBe(true);
    expect(contentMatches('scan.pdf', PNG, true)).toBe(false);
    expect(contentMatches('photo.png', PNG, true)).toBe(true);
    expect(contentMatches('photo.jpg', PNG, true)).toBe(false);
    expect(contentMatches('notes.txt', new TextEncoder().encode('plain text æøå'), true)).toBe(true);
    expect(contentMatches('notes.txt', bytes(0x00, 0x01, 0x02), true)).toBe(false);
    expect(contentMatches('notes.csv', bytes(0xff, 0xfe, 0x41), true)).toBe(false);
    // A sample that cuts a character in two is not an error while more bytes follow.
    expect(contentMatches('notes.txt', bytes('a', 0xc3), false)).toBe(true);
    expect(contentMatches('notes.txt', bytes('a', 0xc3), true)).toBe(false);
    expect(contentMatches('run.exe', bytes('MZ'), true)).toBe(false);
  });

  it('the browser refuses such a file at once, by name, and keeps the others', () => {
    const files = [
      { name: 'scan.pdf', type: 'application/pdf' },
      { name: 'fake.pdf', type: 'application/pdf' },
      { name: 'photo.png', type: 'image/png' },
    ];
    const kept = keepAllowedFiles([], files, [
      { bytes: PDF, complete: false },
      { bytes: PNG, complete: false },
      { bytes: PNG, complete: false },
    ]);
    expect(kept.files.map((f) => f.name)).toEqual(['scan.pdf', 'photo.png']);
    expect(kept.refused).toEqual(['fake.pdf']);
    expect(kept.dropped).toBe(0);
  });

  it('names each file not added with its reason: too many, type not allowed, too large (issue 42)', () => {
    const f = (name: string, size = 10, type = '') => ({ name, size, type });
    const existing = [f('1.pdf'), f('2.pdf'), f('3.pdf')];
    const kept = keepAllowedFiles(existing, [f('run.exe'), f('film.mp4', LIMITS.maxFileBytes + 1), f('4.pdf'), f('sneaky.txt', 10, 'application/x-msdownload'), f('5.pdf'), f('6.pdf')]);
    expect(kept.files.map((x) => x.name)).toEqual(['1.pdf', '2.pdf', '3.pdf', '4.pdf', '5.pdf']);
    expect(kept.rejected).toEqual([
      { name: 'run.exe', reason: 'type' },
      { name: 'film.mp4', reason: 'tooLarge' },
      { name: 'sneaky.txt', reason: 'type' },
      { name: '6.pdf', reason: 'tooMany' },
    ]);
    expect(kept.dropped).toBe(4);
    // A file of exactly 2 GB is allowed.
    expect(keepAllowedFiles([], [f('big.mov', LIMITS.maxFileBytes)]).rejected).toEqual([]);
  });

  it('the server judges the same bytes the same way', async () => {
    for (const [name, head, expected] of [
      ['scan.pdf', PDF, true],
      ['scan.pdf', PNG, false],
      ['photo.png', PNG, true],
    ] as const) {
      const sniffer = new ContentSniffer(name);
      sniffer.resume();
      sniffer.end(Buffer.from(head));
      await new Promise((r) => sniffer.on('end', r));
      expect(sniffer.verdict() !== null, name).toBe(expected);
      expect(contentMatches(name, head, true), name).toBe(expected);
    }
  });
});

describe('config fallback (spec §7, §8)', () => {
  it("the server's policy does not allow the development fallback address: a page it sends is same-origin (issue 36, 6a)", () => {
    const csp = SECURITY_HEADERS['content-security-policy']!;
    const directive = (name: string) => csp.split(';').map((d) => d.trim().split(/\s+/)).find((d) => d[0] === name)!.slice(1);
    const origin = new URL(FALLBACK_API_BASE_URL).origin;
    expect(csp).not.toContain(origin);
    expect(directive('connect-src')).toEqual(["'self'"]);
    expect(directive('img-src')).toEqual(["'self'", 'data:', 'blob:']);
  });
});
