/**
 * The export as a document of plain strings (docs/decisions/case-export.md): built in
 * the browser from what the case page opened, already in the handler's language, and
 * handed to pdf.ts. Keeping it free of React, i18n and fetch lets the unit tests make
 * a real PDF from it and read it back.
 */

export interface ExportLine {
  /** A label before the value (bold), or none for a paragraph. */
  label?: string;
  text: string;
  /** Hashes and ids: kept on one line where they fit, broken anywhere when they do not. */
  mono?: boolean;
}

export interface ExportSection {
  title: string;
  lines: ExportLine[];
}

export interface ExportDocument {
  /** The first heading and the PDF's title. */
  title: string;
  /** Lines under the title: who made it, when, the parts. */
  intro: string[];
  /** On the first page when something was blacked out; never itself redacted. */
  redactionNotice: string | null;
  sections: ExportSection[];
}

/** The same document with every content string passed through `redact` (not the notice). */
export function redactDocument(doc: ExportDocument, redact: (text: string) => string): ExportDocument {
  return {
    title: redact(doc.title),
    intro: doc.intro.map(redact),
    redactionNotice: doc.redactionNotice,
    sections: doc.sections.map((s) => ({
      title: redact(s.title),
      lines: s.lines.map((l) => ({ ...l, ...(l.label !== undefined ? { label: redact(l.label) } : {}), text: redact(l.text) })),
    })),
  };
}
