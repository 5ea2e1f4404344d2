/** Phone numbers shown in groups and dialled compact (issue 17 §2, tap-to-call). */
import { describe, expect, it } from 'vitest';
import { groupPhone, telHref } from '../../src/components/phone.ts';

describe('phone numbers for people', () => {
  it.each([
    ['+4570203040', '+45 70 20 30 40'],
    ['+45 70 20 30 40', '+45 70 20 30 40'],
    ['+4670123456', '+46 70 12 34 56'],
    ['+447911123456', '+44 791 112 3456'],
    ['+48501234567', '+48 501 234 567'],
    ['+12025550123', '+1 202 555 0123'],
    ['+35312345678', '+353 12 34 56 78'],
  ])('groups %s as %s', (input, shown) => {
    expect(groupPhone(input)).toBe(shown);
  });

  it('dials the compact number, and leaves what is not a number alone', () => {
    expect(telHref('+45 70 20 30 40')).toBe('tel:+4570203040');
    expect(telHref('call the switchboard')).toBeNull();
    expect(groupPhone('  ext. 42 ')).toBe('ext. 42');
  });
});
