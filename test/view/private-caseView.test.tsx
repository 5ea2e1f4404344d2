/** The private pages' readings of a case: progress, the directive's clocks, shared files. */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  categoryOf,
  categoryTotals,
  hasConfirmation,
  isAwaitingInitiation,
  legalClocks,
  progressFill,
  sharedFiles,
} from '../../src/private/caseView.ts';
import { formatBytes } from '../../src/i18n/bytes.ts';
import '../../src/i18n/private/index.ts';
import { legalClocks as sharedLegalClocks } from '../../machines/schema.ts';
import { formatMessage, loadCatalogue, type Catalogue, type Language } from '../../src/i18n/index.ts';

const CATALOGUES: Partial<Record<Language, Catalogue>> = {};
beforeAll(async () => {
  for (const lang of ['en', 'pl', 'da'] as const) CATALOGUES[lang] = { ...(await loadCatalogue('common', lang)), ...(await loadCatalogue('private', lang)) };
});
const tOf = (lang: Language) => (key: string, values?: Record<string, unknown>) =>
  formatMessage(lang, [CATALOGUES[lang]!], key, values as never);
import type { PrivateCase, StatusEvent } from '../../machines/session.ts';
import { sampleCase } from '../model/session.fixtures.ts';

const ev = (status: StatusEvent['status'], dateTime = '2026-11-01T10:00:00.000Z'): StatusEvent => ({ status, dateTime });

describe('progress display (spec §4)', () => {
  it('fills 5/33/66/100 % by the number of events, pending contact excluded', () => {
    expect(progressFill([ev('PENDING_WHISTLEBLOWER_CONTACT')])).toBe(0);
    expect(progressFill([ev('PENDING_WHISTLEBLOWER_CONTACT'), ev('RECEIVED')])).toBe(5);
    expect(progressFill([ev('RECEIVED'), ev('BEING_INVESTIGATED')])).toBe(33);
    expect(progressFill([ev('RECEIVED'), ev('BEING_INVESTIGATED'), ev('BEING_CLOSED')])).toBe(66);
    expect(progressFill([ev('RECEIVED'), ev('BEING_INVESTIGATED'), ev('BEING_CLOSED'), ev('CLOSED')])).toBe(100);
  });
  it('warns that the case will be initiated only for a lone pending-contact event', () => {
    expect(isAwaitingInitiation([ev('PENDING_WHISTLEBLOWER_CONTACT')])).toBe(true);
    expect(isAwaitingInitiation([ev('PENDING_WHISTLEBLOWER_CONTACT'), ev('RECEIVED')])).toBe(false);
    expect(isAwaitingInitiation([ev('RECEIVED')])).toBe(false);
  });
  it('enables the confirmation only with exactly one RECEIVED event', () => {
    expect(hasConfirmation([ev('RECEIVED')])).toBe(true);
    expect(hasConfirmation([ev('PENDING_WHISTLEBLOWER_CONTACT')])).toBe(false);
    expect(hasConfirmation([ev('RECEIVED'), ev('RECEIVED')])).toBe(false);
  });
});

describe('the directive\'s clocks', () => {
  const base: PrivateCase = { ...sampleCase, events: [ev('RECEIVED', '2026-01-31T09:00:00.000Z')], messages: [] };
  const msg = (type: 'CONFIRMATION' | 'FEEDBACK', time: string) => ({ id: `${type}-${time}`, message: 'x', time, type, createdByUserId: 'h1', files: [] });

  it('has not started before the case is received', () => {
    expect(legalClocks({ ...base, events: [ev('PENDING_WHISTLEBLOWER_CONTACT')] })).toEqual({
      acknowledgement: { state: 'notStarted' },
      feedback: { state: 'notStarted' },
    });
  });
  it('is due 7 days after receipt, then overdue', () => {
    const due = legalClocks(base, new Date('2026-02-03T00:00:00Z')).acknowledgement;
    expect(due).toEqual({ state: 'due', due: new Date('2026-02-07T09:00:00.000Z'), overdue: false });
    expect(legalClocks(base, new Date('2026-02-08T00:00:00Z')).acknowledgement).toMatchObject({ state: 'due', overdue: true });
  });
  it('counts feedback from the acknowledgement, 3 months, clamping to the month end', () => {
    const c = { ...base, messages: [msg('CONFIRMATION', '2026-02-01T12:00:00.000Z')] };
    const { acknowledgement, feedback } = legalClocks(c, new Date('2026-02-02T00:00:00Z'));
    expect(acknowledgement).toMatchObject({ state: 'met', late: false });
    expect(feedback).toMatchObject({ state: 'due', due: new Date('2026-05-01T12:00:00.000Z') });
    // Without an acknowledgement: 3 months from the end of the 7 days.
    expect(legalClocks(base, new Date('2026-02-02T00:00:00Z')).feedback).toMatchObject({ due: new Date('2026-05-07T09:00:00.000Z') });
    // 30 November + 3 months is the end of February, not 2 March.
    const nov = { ...base, events: [ev('RECEIVED', '2025-11-23T10:00:00.000Z')] };
    expect(legalClocks(nov).feedback).toMatchObject({ due: new Date('2026-02-28T10:00:00.000Z') });
  });
  it('is met by the first feedback message, and says when that was late', () => {
    const c = { ...base, messages: [msg('CONFIRMATION', '2026-02-01T12:00:00.000Z'), msg('FEEDBACK', '2026-06-01T12:00:00.000Z')] };
    expect(legalClocks(c).feedback).toMatchObject({ state: 'met', late: true });
  });
});

describe('one reading of the clocks for reporter, handler and reminder mail', () => {
  const base: PrivateCase = { ...sampleCase, events: [ev('RECEIVED', '2026-01-31T09:00:00.000Z')], messages: [] };
  const msg = (type: 'CONFIRMATION' | 'FEEDBACK', time: string) => ({ id: `${type}-${time}`, message: 'x', time, type, createdByUserId: 'h1', files: [] });
  it('a feedback message alone acknowledges receipt, as the handlers\' inbox reads it', () => {
    const c = { ...base, messages: [msg('FEEDBACK', '2026-02-01T12:00:00.000Z')] };
    const { acknowledgement, feedback } = legalClocks(c, new Date('2026-02-02T00:00:00Z'));
    expect(acknowledgement).toMatchObject({ state: 'met', at: new Date('2026-02-01T12:00:00.000Z') });
    expect(feedback).toMatchObject({ state: 'met' });
  });
  it('matches the handlers\' inbox deadline for the same case', () => {
    const c = { ...base, messages: [msg('CONFIRMATION', '2026-02-03T08:00:00.000Z')] };
    const received = new Date(c.events.find((e: StatusEvent) => e.status === 'RECEIVED')!.dateTime);
    const clocks = sharedLegalClocks(received, new Date('2026-02-03T08:00:00.000Z'), null)!;
    expect(legalClocks(c).feedback).toMatchObject({ due: clocks.feedback.due });
    expect(legalClocks(c).acknowledgement).toMatchObject({ due: clocks.acknowledgement.due });
  });
});

describe('shared files', () => {
  const c: PrivateCase = {
    ...sampleCase,
    files: [{ id: 'f1', name: 'contract.PDF', size: 2_000, mimeType: 'application/pdf', created: '2026-11-01T10:00:00Z' }],
    messages: [
      {
        id: 'm1',
        message: 'see attached',
        time: '2026-11-02T10:00:00Z',
        type: 'STANDARD',
        createdByUserId: 'handler-1',
        files: [
          { id: 'f2', name: 'photo.jpg', size: 1_500_000, mimeType: 'image/jpeg' },
          { id: 'f3', name: 'call.mov', size: 30_000_000, mimeType: 'video/quicktime' },
          { id: 'f4', name: 'notes.odt', size: 500, mimeType: 'application/octet-stream' },
        ],
      },
    ],
  };
  it('sorts files into documents, pictures, video and other, with count and total size', () => {
    expect(categoryOf({ name: 'a.xlsx', mimeType: '' })).toBe('documents');
    expect(categoryOf({ name: 'a.PNG', mimeType: '' })).toBe('images');
    expect(categoryOf({ name: 'a.wmv', mimeType: '' })).toBe('video');
    expect(categoryOf({ name: 'a.exe', mimeType: 'application/x-msdownload' })).toBe('other');
    const files = sharedFiles(c);
    expect(files.map((f) => f.id)).toEqual(['f2', 'f3', 'f4', 'f1']);
    expect(files.find((f) => f.id === 'f1')!.own).toBe(true);
    expect(files.find((f) => f.id === 'f2')!.own).toBe(false);
    const totals = categoryTotals(files);
    expect(totals.all).toEqual({ count: 4, bytes: 31_502_500 });
    expect(totals.documents).toEqual({ count: 1, bytes: 2_000 });
    expect(totals.images).toEqual({ count: 1, bytes: 1_500_000 });
    expect(totals.video).toEqual({ count: 1, bytes: 30_000_000 });
    expect(totals.other).toEqual({ count: 1, bytes: 500 });
  });
  it('shows sizes human-readable in the reporter\'s language', () => {
    // ICU plural below 1 kB: never "173 byte".
    expect(formatBytes(173, 'en', tOf('en'))).toBe('173 bytes');
    expect(formatBytes(1, 'en', tOf('en'))).toBe('1 byte');
    expect(formatBytes(173, 'pl', tOf('pl'))).toBe('173 bajty');
    expect(formatBytes(500, 'pl', tOf('pl'))).toBe('500 bajtów');
    expect(formatBytes(2_000, 'en', tOf('en'))).toBe('2 kB');
    expect(formatBytes(1_500_000, 'en', tOf('en'))).toBe('1.5 MB');
    expect(formatBytes(1_500_000, 'da', tOf('da'))).toBe('1,5 MB');
  });
});
