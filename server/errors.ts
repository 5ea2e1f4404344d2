/**
 * Every refusal leaves the server as `{ error: { code, message, field? } }` with a
 * 4xx status (DESIGN.md §4). Route code throws HttpError; the app's error handler
 * turns anything else a client can cause into a 4xx and keeps 5xx for real faults.
 */
import type { FieldIssue } from '../machines/schema.ts';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** A 400 `VALIDATION`: every bad field (server/routes/parse.ts). */
    readonly fields?: readonly FieldIssue[],
    /** Facts a client acts on beside the code (e.g. `currentVersion` of a RECORD_VERSION_CONFLICT), sent inside `error`. */
    readonly extra?: Readonly<Record<string, string | number>>,
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string, field?: string) => new HttpError(400, code, message, field);
export const notFound = (code: string, message: string) => new HttpError(404, code, message);

export interface ErrorBody {
  error: { code: string; message: string; field?: string; fields?: FieldIssue[]; [fact: string]: unknown };
}

export function errorBody(code: string, message: string, field?: string, fields?: readonly FieldIssue[], extra?: Readonly<Record<string, string | number>>): ErrorBody {
  const error: ErrorBody['error'] = { ...extra, ...(field ? { code, message, field } : { code, message }) };
  if (fields?.length) error.fields = fields.map((f) => ({ ...f }));
  return { error };
}
