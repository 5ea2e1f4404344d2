/**
 * Phone numbers as people read and dial them: grouped for the eye
 * ("+45 70 20 30 40"), compact in the `tel:` link a tap dials.
 */

/** ITU two-digit country codes; 1 and 7 have one digit, every other code three. */
const TWO_DIGIT_CODES = new Set([
  20, 27, 30, 31, 32, 33, 34, 36, 39, 40, 41, 43, 44, 45, 46, 47, 48, 49, 51, 52, 53, 54, 55, 56, 57, 58, 60, 61, 62, 63, 64, 65, 66,
  81, 82, 84, 86, 90, 91, 92, 93, 94, 95, 98,
]);

export function compactPhone(phone: string): string {
  return phone.replace(/[\s().-]/g, '');
}

/** `tel:` link for a number, or null when it is not an international number. */
export function telHref(phone: string): string | null {
  const compact = compactPhone(phone);
  return /^\+\d{6,15}$/.test(compact) ? `tel:${compact}` : null;
}

function groupsOf(digits: string): string[] {
  if (digits.length <= 8 && digits.length % 2 === 0) return digits.match(/\d{2}/g) ?? [digits];
  const out: string[] = [];
  let rest = digits;
  while (rest.length > 4) {
    out.push(rest.slice(0, 3));
    rest = rest.slice(3);
  }
  out.push(rest);
  return out;
}

/** "+4570203040" → "+45 70 20 30 40"; anything that is not an international number stays as typed. */
export function groupPhone(phone: string): string {
  const compact = compactPhone(phone);
  if (!/^\+\d{6,15}$/.test(compact)) return phone.trim();
  const digits = compact.slice(1);
  const codeLength = digits[0] === '1' || digits[0] === '7' ? 1 : TWO_DIGIT_CODES.has(Number(digits.slice(0, 2))) ? 2 : 3;
  return ['+' + digits.slice(0, codeLength), ...groupsOf(digits.slice(codeLength))].join(' ');
}
