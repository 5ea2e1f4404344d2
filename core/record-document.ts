/**
 * The approved version of an oral report's record as a plain-text document
 * (docs/decisions/record-versions.md "Download"): one format whether the server writes
 * it (a server-keyed case) or the handler's browser does from the text it opened (a
 * sealed case, where the server has no key). Plain text, not PDF, because the SHA-256
 * is of exactly the lines between the markers: anyone can cut them out and check the
 * hash with any tool, which a PDF's text extraction does not promise byte for byte.
 */
export interface ApprovedRecordVersion {
  caseNumber: string;
  version: number;
  createdAt: string;
  approvedAt: string;
  sha256: string;
  text: string;
}

export const RECORD_BEGIN = '----- BEGIN RECORD -----';
export const RECORD_END = '----- END RECORD -----';

export function approvedRecordDocument(v: ApprovedRecordVersion): { name: string; body: string } {
  const body = [
    `Record of case ${v.caseNumber}, version ${v.version}`,
    `Recorded: ${v.createdAt}`,
    `Approved by the reporter: ${v.approvedAt}`,
    `SHA-256 of the record text (UTF-8, the lines between the markers, without the final line break): ${v.sha256}`,
    RECORD_BEGIN,
    v.text,
    RECORD_END,
    '',
  ].join('\n');
  return { name: `record-${v.caseNumber}-v${v.version}.txt`, body };
}
