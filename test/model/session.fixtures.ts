/** A case as `my-case` answers it, for the private-area machine models. */
import type { PrivateCase } from '../../machines/session.ts';

export const CASE_NUMBER = '1234567890123456';

export const sampleCase: PrivateCase = {
  caseNumber: CASE_NUMBER,
  status: 'RECEIVED',
  description: 'Invoices paid twice',
  violation: 'FRAUD',
  repeatedViolations: false,
  created: '2026-11-01T10:00:00.000Z',
  receivedDate: '2026-11-01T10:00:00.000Z',
  submission: { type: 'PHONE' },
  approvedAt: null,
  pendingWhistleblowerAction: false,
  protectionOfficer: null,
  whistleblowerRelation: 'Employee',
  reportedPersons: [],
  reportedUnit: 'Accounts',
  subsidiary: null,
  caseAccount: { follow: true },
  files: [],
  messages: [],
  events: [{ status: 'RECEIVED', dateTime: '2026-11-01T10:00:00.000Z' }],
  caseStatusHistory: [{ status: 'RECEIVED', dateTime: '2026-11-01T10:00:00.000Z' }],
  whistleblower: null,
  report: null,
  comments: [],
};
