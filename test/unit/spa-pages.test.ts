/**
 * private.html and report.html are index.html with another entry
 * (docs/decisions/private-entry.md, report-entry.md): the pages must not drift apart, or
 * a private or report page would differ from every other page in its head (viewport,
 * referrer policy, description) before the server fills it in.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('the private area’s page', () => {
  it('is index.html with the private entry in place of src/main.tsx, and nothing else', () => {
    const index = read('index.html');
    expect(index).toContain('<script type="module" src="/src/main.tsx"></script>');
    expect(read('private.html')).toBe(index.replace('/src/main.tsx', '/src/entries/private.ts'));
  });
});

describe('the report forms’ page', () => {
  it('is index.html with the report entry in place of src/main.tsx, and nothing else', () => {
    expect(read('report.html')).toBe(read('index.html').replace('/src/main.tsx', '/src/entries/report.ts'));
  });
});
