/**
 * Entering a report that came by letter, e-mail or in person (issue 38 Build 8;
 * docs/decisions/handler-entered-reports.md): the handler types the report's content as
 * the online form has it, names the channel and the day it was received, says whether
 * the reporter wants to follow the case; the browser seals it (or, at a server-keyed
 * company, sends it to be sealed on the server) and shows the slip once: the case
 * number and, for a followed case, the password generated for the reporter.
 *
 * Invariants:
 * - The form opens only with the officers the server says this handler may enter for
 *   (`loading`); none, or no answer, is `unreachable` with a new try.
 * - Nothing is sent before the draft passes the shared rules (machines/schema.ts
 *   `enteredReportSchema`: the form's content rules, a received day neither in the
 *   future nor more than a year back); a refused `entry.submit` names each bad field.
 * - The password exists only in the slip (`entered`): it comes from the effect that
 *   derived the reporter's keys from it, and leaving the slip forgets it. Leaving asks
 *   first (`confirmingClose`): it will not be shown again.
 * - A refusal or a network failure keeps the draft (`failed`, then `entry.retry`); a
 *   401 also ends the session (`reportUnauthorized`).
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import * as v from 'valibot';
import { enteredReportSchema, firstIssue, type EnteredReport, type EntryChannel, type Violation } from '../schema.ts';

export interface EntryDraft {
  channel: EntryChannel;
  /** YYYY-MM-DD, as a date field gives it. */
  receivedOn: string;
  officerId: string;
  subsidiaryId: string;
  relation: string;
  violation: Violation;
  description: string;
  /** '' until chosen. */
  repeated: '' | 'yes' | 'no';
  personName: string;
  personJobTitle: string;
  personContact: string;
  unit: string;
  /** The reporter gave her name (and maybe an address or phone). */
  identified: boolean;
  name: string;
  email: string;
  phone: string;
  follow: boolean;
}
export type EntryField = keyof EntryDraft;

export interface EntryAnswer {
  status: number;
  code?: string;
  caseNumber?: string;
  /** The password the effect generated and derived the reporter's keys from; null when nobody follows the case. */
  password?: string | null;
}

export interface EntrySlip {
  caseNumber: string;
  password: string | null;
  channel: EntryChannel;
  receivedOn: string;
}

/** The officers this handler may enter for and the company's subsidiaries (GET /api/handler/case-entry). */
export interface EntryChoices {
  officers: { id: string; name: string }[];
  subsidiaries: { id: string; name: string }[];
}
export interface ChoicesAnswer {
  status: number;
  choices?: EntryChoices;
}

export interface CaseEntryContext {
  choices: EntryChoices;
  draft: EntryDraft;
  /** Field → message key of the last refused `entry.submit`. */
  issues: Partial<Record<string, string>>;
  slip: EntrySlip | null;
  /** The case made, kept after the slip is gone so the view can open it. */
  caseNumber: string | null;
  failure: string | null;
}

export type CaseEntryEvent =
  | { type: 'field.change'; field: EntryField; value: string | boolean }
  | { type: 'choices.retry' }
  | { type: 'entry.submit' }
  | { type: 'entry.retry' }
  | { type: 'slip.print' }
  | { type: 'slip.close' }
  | { type: 'close.confirm' }
  | { type: 'close.cancel' };

export const emptyDraft = (input: { receivedOn: string; officerId?: string }): EntryDraft => ({
  channel: 'LETTER',
  receivedOn: input.receivedOn,
  officerId: input.officerId ?? '',
  subsidiaryId: '',
  relation: '',
  violation: 'DONT_KNOW',
  description: '',
  repeated: '',
  personName: '',
  personJobTitle: '',
  personContact: '',
  unit: '',
  identified: false,
  name: '',
  email: '',
  phone: '',
  follow: true,
});

/** The draft as the shared schema reads it: a person only when one is named, the identity only when given. */
export function reportOf(d: EntryDraft): unknown {
  const person = d.personName || d.personJobTitle || d.personContact ? [{ name: d.personName, jobTitle: d.personJobTitle, phoneOrEmail: d.personContact }] : [];
  return {
    channel: d.channel,
    receivedOn: d.receivedOn,
    whistleblowerRelation: d.relation,
    subsidiary: d.subsidiaryId || null,
    protectionOfficer: { id: d.officerId },
    whistleblower: d.identified ? { name: d.name, email: d.email || null, phone: d.phone || null } : null,
    description: d.description,
    violation: d.violation,
    repeatedViolations: d.repeated === '' ? undefined : d.repeated === 'yes',
    reportedPersons: person,
    reportedUnit: d.unit || null,
    follow: d.follow,
  };
}

/** Every bad field of the draft, by the field names the view uses, or {} when it may be sent. */
export function draftIssues(d: EntryDraft): Partial<Record<string, string>> {
  const r = v.safeParse(enteredReportSchema, reportOf(d));
  if (r.success) return {};
  const out: Partial<Record<string, string>> = {};
  for (const issue of r.issues) {
    const { field, message } = firstIssue([issue]);
    const key = FIELD_OF[field ?? ''] ?? field ?? 'reportedPersons';
    out[key] ??= message.startsWith('Invalid') ? 'validation.required' : message;
  }
  return out;
}

/** Schema paths → draft fields. */
const FIELD_OF: Record<string, EntryField> = {
  whistleblowerRelation: 'relation',
  'protectionOfficer.id': 'officerId',
  subsidiary: 'subsidiaryId',
  repeatedViolations: 'repeated',
  'reportedPersons.0.name': 'personName',
  'reportedPersons.0.jobTitle': 'personJobTitle',
  'reportedPersons.0.phoneOrEmail': 'personContact',
  reportedUnit: 'unit',
  'whistleblower.name': 'name',
  'whistleblower.email': 'email',
  'whistleblower.phone': 'phone',
};

const answer = (event: unknown) => (event as DoneActorEvent<EntryAnswer>).output;

export const caseEntryMachine = setup({
  types: {} as { context: CaseEntryContext; events: CaseEntryEvent; input: { receivedOn: string; officerId?: string } },
  actors: {
    loadChoices: fromPromise<ChoicesAnswer>(async () => {
      throw new Error('loadChoices not provided');
    }),
    enterCase: fromPromise<EntryAnswer, EnteredReport>(async () => {
      throw new Error('enterCase not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    /** A named effect the view supplies: it prints the slip with the slip's print style. */
    printSlip: () => {},
    changeField: assign({
      draft: ({ context, event }) => {
        if (event.type !== 'field.change') return context.draft;
        const booleans: EntryField[] = ['identified', 'follow'];
        const value = booleans.includes(event.field) ? event.value === true : String(event.value);
        return { ...context.draft, [event.field]: value };
      },
      // A field typed again loses its old complaint; the next submit checks it anew.
      issues: ({ context, event }) => {
        if (event.type !== 'field.change') return context.issues;
        const rest = { ...context.issues };
        delete rest[event.field];
        return rest;
      },
    }),
    // The first officer is chosen already when there is only one to choose from.
    assignChoices: assign(({ context, event }) => {
      const choices = (event as unknown as DoneActorEvent<ChoicesAnswer>).output.choices!;
      const only = choices.officers.length === 1 ? choices.officers[0]!.id : context.draft.officerId;
      return { choices, draft: { ...context.draft, officerId: choices.officers.some((o) => o.id === context.draft.officerId) ? context.draft.officerId : only } };
    }),
    assignIssues: assign({ issues: ({ context }) => draftIssues(context.draft) }),
    clearIssues: assign({ issues: {} }),
    assignSlip: assign({
      slip: ({ context, event }) => ({ caseNumber: answer(event).caseNumber!, password: answer(event).password ?? null, channel: context.draft.channel, receivedOn: context.draft.receivedOn }),
      caseNumber: ({ event }) => answer(event).caseNumber!,
    }),
    forgetSlip: assign({ slip: null }),
    assignFailure: assign({ failure: ({ event }) => answer(event).code ?? `HTTP_${answer(event).status}` }),
    assignNetworkFailure: assign({ failure: 'NETWORK' }),
    clearFailure: assign({ failure: null }),
  },
  guards: {
    hasChoices: ({ event }) => {
      const a = (event as unknown as DoneActorEvent<ChoicesAnswer>).output;
      return a.status === 200 && !!a.choices && a.choices.officers.length > 0;
    },
    isSendable: ({ context }) => Object.keys(draftIssues(context.draft)).length === 0,
    isEntered: ({ event, context }) => {
      const a = answer(event);
      return a.status === 201 && typeof a.caseNumber === 'string' && (!context.draft.follow || typeof a.password === 'string');
    },
    isUnauthorizedAnswer: ({ event }) => answer(event).status === 401,
  },
}).createMachine({
  id: 'handlerCaseEntry',
  initial: 'loading',
  context: ({ input }) => ({ choices: { officers: [], subsidiaries: [] }, draft: emptyDraft(input), issues: {}, slip: null, caseNumber: null, failure: null }),
  states: {
    loading: {
      tags: ['busy'],
      invoke: {
        id: 'loadChoices',
        src: 'loadChoices',
        onDone: [{ guard: 'hasChoices', target: 'editing', actions: 'assignChoices' }, { target: 'unreachable' }],
        onError: { target: 'unreachable' },
      },
    },
    unreachable: {
      on: { 'choices.retry': 'loading' },
    },
    editing: {
      on: {
        'field.change': { actions: 'changeField' },
        'entry.submit': [{ guard: 'isSendable', target: 'entering', actions: 'clearIssues' }, { actions: 'assignIssues' }],
      },
    },
    entering: {
      tags: ['busy'],
      invoke: {
        id: 'enterCase',
        src: 'enterCase',
        input: ({ context }) => v.parse(enteredReportSchema, reportOf(context.draft)),
        onDone: [
          { guard: 'isEntered', target: 'entered', actions: 'assignSlip' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: ['assignFailure', 'reportUnauthorized'] },
          { target: 'failed', actions: 'assignFailure' },
        ],
        onError: { target: 'failed', actions: 'assignNetworkFailure' },
      },
    },
    failed: {
      on: { 'entry.retry': { target: 'editing', actions: 'clearFailure' } },
    },
    entered: {
      initial: 'showing',
      states: {
        showing: {
          on: {
            'slip.print': { actions: 'printSlip' },
            'slip.close': 'confirmingClose',
          },
        },
        confirmingClose: {
          on: {
            'close.confirm': { target: '#handlerCaseEntry.done', actions: 'forgetSlip' },
            'close.cancel': 'showing',
          },
        },
      },
    },
    done: { type: 'final' },
  },
});
