/** What the reporter's and the handler's record routes share (docs/decisions/record-versions.md). */
import type { FastifyReply } from 'fastify';
import { recordApprovalSchema } from '../../machines/schema.ts';
import { HttpError } from '../errors.ts';

export const approveSchema = recordApprovalSchema;

export function versionNumber(raw: string): number {
  if (!/^[1-9]\d{0,5}$/.test(raw)) throw new HttpError(400, 'BAD_REQUEST', 'A record version is a positive whole number.', 'version');
  return Number(raw);
}

/** The approved version as a plain-text attachment, its hash and approval time also in headers. */
export function sendRecordDocument(reply: FastifyReply, doc: { name: string; body: string; sha256: string; approvedAt: string }) {
  return reply
    .header('cache-control', 'no-store')
    .header('content-disposition', `attachment; filename="${doc.name}"`)
    .header('x-record-sha256', doc.sha256)
    .header('x-record-approved-at', doc.approvedAt)
    .type('text/plain; charset=utf-8')
    .send(doc.body);
}
