/**
 * Blacking out before an export (docs/decisions/case-export.md "Redaction"): every
 * occurrence of each term, whatever its case, becomes one bar of fixed length, so the
 * bar tells neither the word nor its length. Runs on the text before it reaches the
 * PDF: a redacted word is never drawn, hidden or put in the file's metadata.
 */

/** What a blacked-out passage becomes: the same bar for every term, in the embedded font. */
export const REDACTION_BAR = '\u2588\u2588\u2588\u2588\u2588\u2588';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One matcher for all terms, longest first so a longer passage is not cut by a shorter term inside it. */
export function redactor(terms: readonly string[]): (text: string) => string {
  const clean = [...new Set(terms.map((t) => t.normalize('NFC').trim()).filter((t) => t !== ''))].sort((a, b) => b.length - a.length);
  if (clean.length === 0) return (text) => text;
  // Whitespace inside a term matches any run of whitespace (a name broken over two lines).
  const pattern = new RegExp(clean.map((t) => escape(t).replace(/\s+/g, '\\s+')).join('|'), 'giu');
  return (text) => text.normalize('NFC').replace(pattern, REDACTION_BAR);
}
