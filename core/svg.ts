/**
 * Whether an SVG logo is plain drawing (docs/decisions/company-editor.md): SVG is
 * refused unless every tag, attribute and entity is on an allow-list; it is never
 * rewritten. The browser's company editor asks before it uploads, and the server asks
 * again for every logo it stores (an upload, an import), because a logo is served to
 * every reporter of the company.
 *
 * A tokenizer, not a parser: anything the grammar below does not read (a DOCTYPE, an
 * entity declaration, CDATA, a processing instruction other than the XML declaration,
 * an unquoted attribute) refuses the file, so what is not understood is never let
 * through. Pure string work: it runs in the browser and in Node.
 */

const ELEMENTS = new Set([
  'svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan', 'title', 'desc',
  'defs', 'lineargradient', 'radialgradient', 'stop', 'clippath', 'mask', 'use', 'symbol', 'pattern', 'metadata',
]);

/** Presentation and geometry only: no event handlers, no scripting, no outside reference. */
const ATTRIBUTE = /^(?:xmlns(?::xlink)?|xml:space|xml:lang|id|class|role|aria-label|aria-labelledby|aria-hidden|lang|version|viewbox|preserveaspectratio|width|height|x|y|x1|y1|x2|y2|cx|cy|r|rx|ry|fx|fy|d|points|transform|fill|fill-opacity|fill-rule|stroke|stroke-width|stroke-linecap|stroke-linejoin|stroke-miterlimit|stroke-dasharray|stroke-dashoffset|stroke-opacity|opacity|font-family|font-size|font-weight|font-style|letter-spacing|text-anchor|dominant-baseline|alignment-baseline|dx|dy|offset|stop-color|stop-opacity|gradientunits|gradienttransform|spreadmethod|clip-path|clip-rule|clippathunits|mask|maskunits|patternunits|patterntransform|href|xlink:href|visibility|display|color|shape-rendering|text-rendering|vector-effect|style)$/;

/** A value may point only inside the document (`#id`, `url(#id)`). */
function valueOk(name: string, value: string): boolean {
  const v = value.toLowerCase();
  if (name === 'href' || name === 'xlink:href') return /^#[\w.-]+$/.test(value);
  if (name === 'xmlns') return value === 'http://www.w3.org/2000/svg';
  if (name === 'xmlns:xlink') return value === 'http://www.w3.org/1999/xlink';
  if (/url\s*\(/.test(v)) {
    for (const m of v.matchAll(/url\s*\(([^)]*)\)/g)) if (!/^\s*['"]?#[\w.-]+['"]?\s*$/.test(m[1]!)) return false;
  }
  return !/javascript:|expression\s*\(|@import|[<>]/.test(v);
}

const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-f]{1,6});/gi;

/** Why the SVG is refused, or null when it is plain drawing. */
export function svgProblem(text: string): string | null {
  let s = text.replace(/^\uFEFF/, '');
  s = s.replace(/^\s*<\?xml\s[^?<>]*\?>/, '');
  if (/&/.test(s.replace(ENTITY, ''))) return 'an entity other than the five of XML';
  const tag = /<!--[\s\S]*?-->|<(\/?)([A-Za-z][\w:.-]*)((?:\s+[A-Za-z][\w:.-]*\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
  const attr = /\s+([A-Za-z][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  let i = 0;
  let sawSvg = false;
  const open: string[] = [];
  while (i < s.length) {
    const lt = s.indexOf('<', i);
    if (lt < 0) break;
    tag.lastIndex = lt;
    const m = tag.exec(s);
    if (!m) return `an unreadable tag at character ${lt}`;
    i = tag.lastIndex;
    if (m[0].startsWith('<!--')) continue;
    const name = m[2]!.toLowerCase();
    if (!ELEMENTS.has(name)) return `the element <${m[2]}>`;
    if (m[1]) {
      if (open.pop() !== name) return `a closing </${m[2]}> that closes nothing`;
      continue;
    }
    if (!sawSvg && name !== 'svg') return 'no <svg> root';
    sawSvg = true;
    for (const a of m[3]!.matchAll(attr)) {
      const an = a[1]!.toLowerCase();
      if (!ATTRIBUTE.test(an)) return `the attribute ${a[1]}`;
      if (!valueOk(an, a[2] ?? a[3] ?? '')) return `the value of ${a[1]}`;
    }
    if (!m[4]) open.push(name);
  }
  if (!sawSvg) return 'no <svg> root';
  if (open.length) return `an unclosed <${open.at(-1)}>`;
  return null;
}
