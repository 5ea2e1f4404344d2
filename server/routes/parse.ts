/**
 * Turning what a client sent into checked values, or into a 400 that names the
 * field. Every route parses through here, so every refusal reads the same.
 */
import * as v from 'valibot';
import { fieldIssues } from '../../machines/schema.ts';
import { HttpError } from '../errors.ts';

/**
 * Valibot output or a 400 `VALIDATION` that lists every bad field in words
 * (docs/api.md "Validation errors"): `message` says them all, `fields` has one entry
 * per field (`{ field, message, rule }`), and `field` is the first, as before.
 */
export function parseOr400<S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  const r = v.safeParse(schema, input);
  if (r.success) return r.output;
  const fields = fieldIssues(r.issues);
  const said = fields.map((f) => `${f.field ? `${what}.${f.field}` : what} ${f.message}`);
  const message = said.length === 1 ? `${said[0]}.` : `${said.length} fields are not valid: ${said.join('; ')}.`;
  throw new HttpError(400, 'VALIDATION', message, fields[0]?.field || undefined, fields);
}

/** A multipart JSON part (`caseDto`, `messageDto`), or a 400 when it is missing or not JSON. */
export function parseJsonPart(text: string | undefined, field: string): unknown {
  if (text === undefined) throw new HttpError(400, 'MISSING_PART', `The "${field}" part is missing.`, field);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'BAD_JSON', `The "${field}" part is not valid JSON.`, field);
  }
}

/** A multipart JSON part checked against its schema. */
export function parseJsonPartAs<S extends v.GenericSchema>(schema: S, text: string | undefined, field: string): v.InferOutput<S> {
  return parseOr400(schema, parseJsonPart(text, field), field);
}
