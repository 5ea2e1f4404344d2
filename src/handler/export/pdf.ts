/**
 * The case's PDF, made in the handler's browser with pdf-lib (docs/decisions/case-export.md).
 * The font is DejaVu Sans, served by the portal itself and embedded as a subset, so the
 * Danish, Norwegian, Swedish, Polish, German and Spanish letters (and the redaction bar)
 * are drawn as they are; pdf-lib's standard fonts know only WinAnsi.
 */
import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import fontkit from '@pdf-lib/fontkit';
import { redactDocument, type ExportDocument } from './document.ts';

export interface ExportFonts {
  regular: Uint8Array;
  bold: Uint8Array;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const SIZE = 10;
const LEADING = 14;

/** Splits text into lines no wider than `width`; words longer than a line are cut by character. */
export function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/(\s+)/)) {
      const candidate = line + word;
      if (font.widthOfTextAtSize(candidate, size) <= width) {
        line = candidate;
        continue;
      }
      if (line.trim() !== '') out.push(line.trimEnd());
      line = word.trimStart();
      while (font.widthOfTextAtSize(line, size) > width) {
        let cut = line.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), size) > width) cut--;
        out.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    out.push(line.trimEnd());
  }
  return out;
}

/**
 * The PDF's bytes. `redact` runs over every string of the document before anything is
 * drawn (and over the PDF's title), so a blacked-out term is nowhere in the file.
 */
export async function makeCasePdf(source: ExportDocument, fonts: ExportFonts, redact: (text: string) => string, now: Date = new Date()): Promise<Uint8Array> {
  const doc = redactDocument(source, redact);
  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const regular = await pdf.embedFont(fonts.regular, { subset: true });
  const bold = await pdf.embedFont(fonts.bold, { subset: true });
  pdf.setTitle(doc.title);
  pdf.setCreator('Whistleblower portal');
  pdf.setProducer('Whistleblower portal');
  pdf.setCreationDate(now);
  pdf.setModificationDate(now);

  const width = A4[0] - 2 * MARGIN;
  let page: PDFPage = pdf.addPage(A4);
  let y = A4[1] - MARGIN;
  const room = (h: number) => {
    if (y - h >= MARGIN) return;
    page = pdf.addPage(A4);
    y = A4[1] - MARGIN;
  };
  const draw = (text: string, font: PDFFont, size: number, leading: number, indent = 0) => {
    for (const line of wrap(text, font, size, width - indent)) {
      room(leading);
      y -= leading;
      if (line !== '') page.drawText(line, { x: MARGIN + indent, y, size, font, color: rgb(0, 0, 0) });
    }
  };

  draw(doc.title, bold, 16, 22);
  for (const line of doc.intro) draw(line, regular, SIZE, LEADING);
  if (doc.redactionNotice) {
    y -= 6;
    draw(doc.redactionNotice, bold, 11, 16);
  }
  for (const section of doc.sections) {
    y -= 10;
    room(40);
    draw(section.title, bold, 13, 20);
    for (const line of section.lines) {
      if (line.label) draw(line.label, bold, SIZE, LEADING);
      draw(line.text, regular, line.mono ? 9 : SIZE, LEADING, line.label ? 12 : 0);
    }
  }
  return pdf.save();
}
