// core/svg.ts: an SVG logo is plain drawing or refused (docs/decisions/company-editor.md),
// and the importer applies the same check (imageMatches).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { svgProblem } from '../../core/svg.ts';
import { imageMatches } from '../../server/companies/service.ts';

const LOGOS = path.resolve(import.meta.dirname, '../../server/seed/logos');
const svg = (body: string, attrs = '') => `<svg xmlns="http://www.w3.org/2000/svg"${attrs}>${body}</svg>`;

describe('svgProblem', () => {
  it.each(readdirSync(LOGOS).filter((f) => f.endsWith('.svg')))('takes the demo logo %s', (f) => {
    expect(svgProblem(readFileSync(path.join(LOGOS, f), 'utf8'))).toBeNull();
  });

  it('takes gradients, in-document references, comments and the XML declaration', () => {
    expect(svgProblem(`<?xml version="1.0" encoding="UTF-8"?>\n<!-- logo -->${svg('<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs><rect width="4" height="4" fill="url(#g)"/><use href="#g"/>')}`)).toBeNull();
  });

  it.each([
    ['a script', svg('<script>alert(1)</script>')],
    ['an event handler', svg('<rect width="1" height="1"/>', ' onload="alert(1)"')],
    ['a link elsewhere', svg('<use href="https://evil.example/a.svg#x"/>')],
    ['javascript: in a link', svg('<a href="javascript:alert(1)"><rect/></a>')],
    ['embedded HTML', svg('<foreignObject><p>hi</p></foreignObject>')],
    ['a style sheet', svg('<style>@import url(https://evil.example/x.css)</style>')],
    ['an outside url() in a style attribute', svg('<rect style="fill: url(https://evil.example/x)"/>')],
    ['a DOCTYPE with entities', `<!DOCTYPE svg [<!ENTITY x "y">]>${svg('<text>&x;</text>')}`],
    ['CDATA', svg('<text><![CDATA[x]]></text>')],
    ['an unquoted attribute', '<svg xmlns="http://www.w3.org/2000/svg" width=10></svg>'],
    ['an unclosed element', '<svg xmlns="http://www.w3.org/2000/svg"><g>'],
    ['no svg root', '<html><body/></html>'],
    ['an image element', svg('<image href="#a"/>')],
  ])('refuses %s', (_name, text) => {
    expect(svgProblem(text)).not.toBeNull();
  });

  it('the importer refuses what the editor refuses', () => {
    expect(imageMatches('image/svg+xml', Buffer.from(svg('<rect width="1" height="1"/>', ' onload="alert(1)"')))).toBe(false);
    expect(imageMatches('image/svg+xml', Buffer.from(svg('<rect width="1" height="1"/>')))).toBe(true);
  });
});
