/**
 * The company editor's draft as plain data (docs/decisions/company-editor.md): the
 * company file the import takes, changed one field at a time by dotted path, and the
 * editor's field list read off the shared schema (machines/companyFile.ts), so a field
 * added to the file (v40's voice settings, say) appears in the form without a form
 * change of its own. Pure functions: the editor machine and the views use them.
 */
import * as v from 'valibot';
import { companyFileSchema, lookAndFeelEntrySchema, type CompanyFile, type LookAndFeelEntry } from '../companyFile.ts';
import { LANGUAGES, type Language } from '../languages.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = (string | number)[];

export interface ImageRef {
  sha256: string;
  contentType: string;
}

export interface Draft {
  file: CompanyFile;
  images: Record<string, ImageRef>;
}

export const pathOf = (dotted: string): Path => (dotted === '' ? [] : dotted.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)));
export const dotted = (path: Path) => path.join('.');

export function getAt(value: unknown, path: Path): unknown {
  let v: unknown = value;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/** A copy of `value` with `path` set; missing objects and lists on the way are made. `undefined` removes the key. */
export function setAt<T>(value: T, path: Path, next: unknown): T {
  if (path.length === 0) return next as T;
  const [k, ...rest] = path;
  const base = (value ?? (typeof k === 'number' ? [] : {})) as Record<string | number, unknown> | unknown[];
  const copy: Record<string | number, unknown> = Array.isArray(base) ? ([...base] as never) : { ...(base as object) };
  const child = setAt((base as Record<string | number, unknown>)[k!], rest, next);
  if (child === undefined && !Array.isArray(copy)) delete copy[k!];
  else copy[k!] = child;
  return copy as T;
}

export function removeAt<T>(value: T, path: Path, index: number): T {
  const list = getAt(value, path);
  if (!Array.isArray(list)) return value;
  return setAt(value, path, list.filter((_, i) => i !== index));
}

// ---- the schema, read as a form -----------------------------------------------

type AnySchema = v.GenericSchema & { type: string; entries?: Record<string, AnySchema>; item?: AnySchema; wrapped?: AnySchema; value?: AnySchema; options?: readonly string[]; pipe?: readonly { type: string; requirement?: unknown }[] };

/** The schema without its optional wrapper. */
function unwrap(s: AnySchema): AnySchema {
  return s.type === 'optional' ? unwrap(s.wrapped!) : s;
}

/** The schema of the value at `path` in a company file, or null. */
export function schemaAt(path: Path, root: AnySchema = companyFileSchema as unknown as AnySchema): AnySchema | null {
  let s: AnySchema | undefined = unwrap(root);
  for (const k of path) {
    if (!s) return null;
    if (s.type === 'strict_object' || s.type === 'object') s = s.entries?.[k as string];
    else if (s.type === 'array') s = s.item;
    else if (s.type === 'record') s = s.value;
    else return null;
    if (s) s = unwrap(s);
  }
  return s ?? null;
}

/** Whether the value at `path` may be left out (an optional key): then it is never "missing". */
export function isOptionalAt(path: Path): boolean {
  const parent = path.length ? schemaAt(path.slice(0, -1)) : null;
  const last = path.at(-1);
  const own = parent && (parent.type === 'strict_object' || parent.type === 'object') && typeof last === 'string' ? parent.entries?.[last] : undefined;
  return own?.type === 'optional';
}

export type FieldKind = 'text' | 'paragraph' | 'boolean' | 'choice' | 'number' | 'colour' | 'list' | 'group' | 'other';

/** The longest text the schema allows at `path` (from its `maxLength`), if any. */
export function maxLengthAt(path: Path): number | undefined {
  const s = schemaAt(path);
  const max = s?.pipe?.find((a) => a.type === 'max_length')?.requirement;
  return typeof max === 'number' ? max : undefined;
}

/** How the form draws the value at `path`: read off the schema, never listed by hand. */
export function kindAt(path: Path): FieldKind {
  const s = schemaAt(path);
  if (!s) return 'other';
  const last = path.at(-1);
  if (typeof last === 'string' && /ColorCode$/.test(last)) return 'colour';
  switch (s.type) {
    case 'string':
      return (maxLengthAt(path) ?? 0) > 500 ? 'paragraph' : 'text';
    case 'boolean':
      return 'boolean';
    case 'picklist':
      return 'choice';
    case 'number':
      return 'number';
    case 'array':
      return 'list';
    case 'strict_object':
    case 'object':
    case 'record':
      return 'group';
    default:
      return 'other';
  }
}

export function choicesAt(path: Path): readonly string[] {
  return schemaAt(path)?.options ?? [];
}

/** The keys of the object at `path` in the schema's order (an unknown future key included). */
export function keysAt(path: Path): string[] {
  const s = schemaAt(path);
  return s && (s.type === 'strict_object' || s.type === 'object') ? Object.keys(s.entries ?? {}) : [];
}

/** The fields of a look-and-feel entry a form row shows: every leaf, by dotted path within the entry. */
export function entryLeaves(entry: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [];
  const walk = (value: unknown, path: Path) => {
    const kind = kindAt(['lookAndFeel', 'da', ...path]);
    if (kind === 'group') {
      for (const k of keysAt(['lookAndFeel', 'da', ...path])) walk(getAt(value, [k]), [...path, k]);
    } else if (kind === 'list') {
      const list = Array.isArray(value) ? value : [];
      list.forEach((item, i) => walk(item, [...path, i]));
    } else {
      out.push(path);
    }
  };
  walk(entry, prefix);
  return out;
}

export interface TextRow {
  /** Within an entry, e.g. `siteFrontPage.heading`. */
  path: Path;
  kind: FieldKind;
  /** Languages whose entry has no value here (or only blanks). */
  missing: Language[];
}

/**
 * Every page's texts side by side: one row per field any offered language has, with
 * the languages that lack it. A list longer in one language than in another shows
 * its extra items as missing in the others.
 */
export function textRows(file: CompanyFile): TextRow[] {
  const seen = new Map<string, TextRow>();
  for (const lang of file.languages) {
    for (const path of entryLeaves(file.lookAndFeel[lang])) {
      const key = dotted(path);
      if (!seen.has(key)) seen.set(key, { path, kind: kindAt(['lookAndFeel', lang, ...path]), missing: [] });
    }
  }
  const rows = [...seen.values()];
  for (const row of rows) {
    if (isOptionalAt(['lookAndFeel', 'da', ...row.path])) continue;
    row.missing = file.languages.filter((lang) => {
      const value = getAt(file.lookAndFeel[lang], row.path);
      return value === undefined || (typeof value === 'string' && value.trim() === '');
    });
  }
  return rows;
}

/** A new item for the list at `path`, shaped by the schema: empty texts, first choices, no children. */
export function templateAt(path: Path, newId: string): Json {
  const item = schemaAt([...path, 0]);
  const make = (s: AnySchema | null, key?: string): Json | undefined => {
    if (!s) return null;
    switch (s.type) {
      case 'string':
        return key === 'id' ? newId : '';
      case 'boolean':
        return false;
      case 'number':
        return 0;
      case 'picklist':
        return s.options?.[0] ?? '';
      case 'array':
        return [];
      case 'strict_object':
      case 'object': {
        const out: Record<string, Json> = {};
        for (const [k, child] of Object.entries(s.entries ?? {})) {
          if (child.type === 'optional') continue;
          const value = make(unwrap(child), k);
          if (value !== undefined) out[k] = value;
        }
        return out;
      }
      default:
        return null;
    }
  };
  return make(item) ?? null;
}

/** A language added: its texts start as a copy of the default language's, its phone code as the default's. */
export function addLanguage(file: CompanyFile, lang: Language, languageName: string): CompanyFile {
  if (file.languages.includes(lang)) return file;
  const from = file.lookAndFeel[file.defaultLanguage] as LookAndFeelEntry;
  const entry = { ...structuredClone(from), languageName };
  return {
    ...file,
    languages: LANGUAGES.filter((l) => l === lang || file.languages.includes(l)),
    lookAndFeel: { ...file.lookAndFeel, [lang]: entry },
    phoneCodes: { ...file.phoneCodes, [lang]: file.phoneCodes[file.defaultLanguage] },
  };
}

/** A language removed with its texts and phone code; the default language cannot be removed. */
export function removeLanguage(file: CompanyFile, lang: Language): CompanyFile {
  if (lang === file.defaultLanguage || !file.languages.includes(lang)) return file;
  const lookAndFeel = { ...file.lookAndFeel };
  delete lookAndFeel[lang];
  const phoneCodes = { ...file.phoneCodes };
  delete phoneCodes[lang];
  return { ...file, languages: file.languages.filter((l) => l !== lang), lookAndFeel, phoneCodes };
}

/** The images the file names, from `images` (uploads no longer named are dropped on save). */
export function usedImages(draft: Draft): Record<string, ImageRef> {
  const out: Record<string, ImageRef> = {};
  const keep = (file: string | undefined) => {
    if (file && draft.images[file]) out[file] = draft.images[file]!;
  };
  keep(draft.file.logo?.file);
  for (const o of draft.file.protectionOfficers ?? []) keep(o.logo?.file);
  return out;
}

/** Same settings: what a save would change, compared as the file writes them. */
export function sameDraft(a: Draft, b: Draft): boolean {
  return JSON.stringify(a.file) === JSON.stringify(b.file) && JSON.stringify(usedImages(a)) === JSON.stringify(usedImages(b));
}

export { lookAndFeelEntrySchema };
