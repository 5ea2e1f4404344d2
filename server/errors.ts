/**
 * Every refusal leaves the server as `{ error: { code, message, field? } }` with a
 * 4xx status (DESIGN.md §4). Route code throws HttpError; the app's error handler
 * turns anything else a client can cause into a 4xx and keeps 5xx for real faults.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string, field?: string) => new HttpError(400, code, message, field);
export const notFound = (code: string, message: string) => new HttpError(404, code, message);

export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

export function errorBody(code: string, message: string, field?: string): ErrorBody {
  return { error: field ? { code, message, field } : { code, message } };
}
