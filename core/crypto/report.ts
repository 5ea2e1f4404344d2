/**
 * What a new report seals as its details, and the password a handler hands over with a
 * report she entered (docs/decisions/handler-entered-reports.md). One shape for every
 * browser that seals a report: the reporter's form (src/forms/seal.ts) and the
 * workspace's entry of a report that came by letter, e-mail or in person
 * (src/handler/caseEntry.ts); the handlers' browsers open it as `SealedDetails`.
 *
 * Invariants: the details hold the reporter's words only (the officer and subsidiary go
 * in clear ids beside the envelope); a handed-over password comes from the WebCrypto
 * random source, uniform over an alphabet without look-alike characters.
 */
import { randomBytes } from './bytes.ts';

/** The report's own fields, as the online form's case shape has them. */
export interface ReportContent {
  description: string | null;
  violation: string | null;
  repeatedViolations: boolean | null;
  whistleblowerRelation: string;
  reportedPersons: readonly { name: string; jobTitle: string; phoneOrEmail: string }[];
  reportedUnit?: string | null;
  voiceMessage?: boolean;
}

/** What is sealed as a case's details (`report_case.details_enc`): the reporter's words, as the handlers' browsers open them. */
export function sealedDetailsOf(c: ReportContent) {
  return {
    description: c.description,
    violation: c.violation,
    repeatedViolations: c.repeatedViolations,
    whistleblowerRelation: c.whistleblowerRelation,
    reportedPersons: c.reportedPersons,
    reportedUnit: c.reportedUnit ?? null,
    // A recorded voice message in place of the text (issue 40): one of the sealed files is it.
    ...(c.voiceMessage ? { voiceMessage: true } : {}),
  };
}

/** Letters and digits that read the same printed, handwritten or dictated (no 0/o, 1/l/i). */
const PASSWORD_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** 20 characters of a 31-letter alphabet: about 99 bits, in five groups of four to copy. */
const PASSWORD_LENGTH = 20;

/**
 * A case password for a reporter who follows a case a handler entered: shown once on the
 * slip, never stored in clear (the browser derives the verifier and the reporter key from
 * it, as the form does from the password the reporter chooses).
 */
export function makeCasePassword(): string {
  const out: string[] = [];
  // Rejection sampling keeps every letter equally likely (256 is not a multiple of 31).
  const limit = 256 - (256 % PASSWORD_ALPHABET.length);
  while (out.length < PASSWORD_LENGTH) {
    for (const b of randomBytes(32)) {
      if (b < limit && out.length < PASSWORD_LENGTH) out.push(PASSWORD_ALPHABET[b % PASSWORD_ALPHABET.length]!);
    }
  }
  return out.join('').replace(/(.{4})(?=.)/g, '$1-');
}
