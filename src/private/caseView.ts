/**
 * Pure readings of the case as read back (spec §4 Progress display, §9), shared by
 * the private pages and their tests. No React, no fetch.
 */
import type { CaseFile, CaseMessage, PrivateCase, StatusEvent } from '../../machines/session.ts';
import { ALLOWED_FILE_TYPES, fileExtension, legalClocks as sharedClocks } from '../../machines/schema.ts';

/** The four steps of the progress display; pending contact is not a step. */
export const PROGRESS_STEPS = ['RECEIVED', 'BEING_INVESTIGATED', 'BEING_CLOSED', 'CLOSED'] as const;
export const PROGRESS_FILL = [0, 5, 33, 66, 100] as const;

export function countedEvents(events: readonly StatusEvent[]): StatusEvent[] {
  return events.filter((e) => e.status !== 'PENDING_WHISTLEBLOWER_CONTACT');
}

/** Fill level in percent: follows the number of status events, pending excluded. */
export function progressFill(events: readonly StatusEvent[]): number {
  const n = Math.min(countedEvents(events).length, PROGRESS_STEPS.length);
  return PROGRESS_FILL[n]!;
}

/** Exactly one event, and it is pending contact: the case will be initiated. */
export function isAwaitingInitiation(events: readonly StatusEvent[]): boolean {
  return events.length === 1 && events[0]!.status === 'PENDING_WHISTLEBLOWER_CONTACT';
}

/**
 * The case's current status (its last event), labelled in the spec's words (§4:
 * draft, received, being investigated, under completion, closed); null without events.
 */
export function currentStatus(events: readonly StatusEvent[]): StatusEvent['status'] | null {
  return events.length ? events[events.length - 1]!.status : null;
}

/** A timeline entry (spec §4 timeline descriptions), keyed by its catalogue name. */
export type TimelineKey = StatusEvent['status'] | 'INITIAL_ASSESSMENT';
export interface TimelineEntry {
  key: TimelineKey;
  dateTime: string;
}

/**
 * The timeline, oldest first: one entry per status event, described as spec §4 does
 * (draft, confirmation received, initial assessment, follow-up, under completion,
 * closed). Receipt starts the initial assessment: a RECEIVED event gives both
 * "confirmation received" and "initial assessment", on the same date
 * (docs/decisions/reporter-spec-deviations.md).
 */
export function timelineEntries(events: readonly StatusEvent[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const e of events) {
    out.push({ key: e.status, dateTime: e.dateTime });
    if (e.status === 'RECEIVED') out.push({ key: 'INITIAL_ASSESSMENT', dateTime: e.dateTime });
  }
  return out;
}

export function receivedEvents(events: readonly StatusEvent[]): StatusEvent[] {
  return events.filter((e) => e.status === 'RECEIVED');
}

/** The confirmation block is enabled only with exactly one RECEIVED event. */
export function hasConfirmation(events: readonly StatusEvent[]): boolean {
  return receivedEvents(events).length === 1;
}

export function messagesOfType(c: PrivateCase, type: CaseMessage['type']): CaseMessage[] {
  return c.messages.filter((m) => m.type === type).sort((a, b) => a.time.localeCompare(b.time));
}

export type Clock =
  | { state: 'notStarted' }
  | { state: 'met'; at: Date; due: Date; late: boolean }
  | { state: 'due'; due: Date; overdue: boolean };

const firstTime = (msgs: readonly CaseMessage[]) => (msgs.length ? new Date(msgs.map((m) => m.time).sort()[0]!) : null);

/**
 * The Directive's clocks as the reporter reads them, by the one shared rule
 * (machines/schema.ts `legalClocks`, which the handlers' inbox and the reminder
 * mails use too): acknowledgement within 7 days of receipt; feedback within 3 months
 * of the acknowledgement or, without one in time, of the end of those 7 days.
 */
export function legalClocks(c: PrivateCase, now: Date = new Date()): { acknowledgement: Clock; feedback: Clock } {
  const received = receivedEvents(c.events)[0]?.dateTime ?? null;
  const ackAt = firstTime(c.messages.filter((m) => m.type === 'CONFIRMATION' || m.type === 'FEEDBACK'));
  const fbAt = firstTime(messagesOfType(c, 'FEEDBACK'));
  const clocks = sharedClocks(received ? new Date(received) : null, ackAt, fbAt);
  if (!clocks) return { acknowledgement: { state: 'notStarted' }, feedback: { state: 'notStarted' } };
  const read = ({ due, metAt }: { due: Date; metAt: Date | null }): Clock =>
    metAt ? { state: 'met', at: metAt, due, late: metAt > due } : { state: 'due', due, overdue: now > due };
  return { acknowledgement: read(clocks.acknowledgement), feedback: read(clocks.feedback) };
}

export const FILE_CATEGORIES = ['all', 'documents', 'images', 'video', 'other'] as const;
export type FileCategory = (typeof FILE_CATEGORIES)[number];

const DOCUMENTS = new Set(['docx', 'csv', 'pdf', 'txt', 'xlsx', 'xls']);
const IMAGES = new Set(['jpg', 'jpeg', 'png']);
const VIDEO = new Set(['mp4', 'mov', 'avi', 'wmv']);

export function categoryOf(file: Pick<CaseFile, 'name' | 'mimeType'>): Exclude<FileCategory, 'all'> {
  const ext = fileExtension(file.name);
  if (Object.hasOwn(ALLOWED_FILE_TYPES, ext)) {
    if (DOCUMENTS.has(ext)) return 'documents';
    if (IMAGES.has(ext)) return 'images';
    if (VIDEO.has(ext)) return 'video';
  }
  if (file.mimeType?.startsWith('image/')) return 'images';
  if (file.mimeType?.startsWith('video/')) return 'video';
  return 'other';
}

export interface SharedFile extends CaseFile {
  /** Who shared it: the reporter (own) or the handlers. */
  own: boolean;
  at: string;
}

/** Every file of the case (submission and messages), newest first, each once. */
export function sharedFiles(c: PrivateCase): SharedFile[] {
  const seen = new Map<string, SharedFile>();
  for (const f of c.files) seen.set(f.id, { ...f, own: true, at: f.created ?? c.created });
  for (const m of c.messages) {
    for (const f of m.files) seen.set(f.id, { ...f, own: m.createdByUserId === c.caseNumber, at: f.created ?? m.time });
  }
  return [...seen.values()].sort((a, b) => b.at.localeCompare(a.at));
}

export function categoryTotals(files: readonly SharedFile[]): Record<FileCategory, { count: number; bytes: number }> {
  const out = Object.fromEntries(FILE_CATEGORIES.map((c) => [c, { count: 0, bytes: 0 }])) as Record<
    FileCategory,
    { count: number; bytes: number }
  >;
  for (const f of files) {
    for (const c of ['all', categoryOf(f)] as FileCategory[]) {
      out[c].count++;
      out[c].bytes += f.size;
    }
  }
  return out;
}

/** The reporter's own messages carry the case number as author (spec §3). */
export function isOwnMessage(c: PrivateCase, m: CaseMessage): boolean {
  return m.createdByUserId === c.caseNumber;
}
