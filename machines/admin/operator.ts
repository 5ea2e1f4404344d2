/**
 * The operator's companies screen (issue 39; docs/decisions/administration.md): the
 * companies of the portal, and a new one made from its company file (the format of
 * `npm run company -- import`, with the images it names; the full editor is the company editor's) together with
 * its first administrator, whose enrolment link is shown once.
 *
 * Invariants:
 * - `creating` is entered only with a company file that parsed as a JSON object and an
 *   administrator with a name and a well-formed e-mail (the shared schema).
 * - The link lives only in `showingLink` and is dropped when it is left.
 * - A refused file keeps the form as typed and names the server's reason (its field).
 * - A 401 reports `reportUnauthorized` (the session chart signs out) and ends `failed`.
 */
import * as v from 'valibot';
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { emailSchema } from '../schema.ts';

export interface OperatorCompany {
  id: string;
  name: string;
  hosts: string[];
}

export interface CompaniesAnswer {
  status: number;
  companies?: OperatorCompany[];
}

/** An image the company file names (its logo, officers' logos), by the name it is named by. */
export type CompanyAssets = Record<string, { contentType: string; base64: string }>;

export interface NewCompany {
  file: Record<string, unknown>;
  assets: CompanyAssets;
  adminName: string;
  adminEmail: string;
}

export interface NewCompanyAnswer {
  status: number;
  code?: string;
  /** The field of the company file the server refused. */
  field?: string;
  companyId?: string;
  enrolmentLink?: string | null;
}

export interface OperatorContext {
  companies: OperatorCompany[];
  /** The chosen file's text, parsed; null when none or not a JSON object. */
  file: Record<string, unknown> | null;
  fileName: string;
  assets: CompanyAssets;
  adminName: string;
  adminEmail: string;
  link: { companyId: string; url: string } | null;
  problem: { kind: 'fileUnreadable' | 'fileRefused' | 'taken' | 'failed'; field?: string } | null;
}

export type OperatorEvent =
  | { type: 'reload' }
  | { type: 'company.open' }
  | { type: 'company.cancel' }
  | { type: 'file.choose'; name: string; text: string }
  | { type: 'assets.choose'; assets: CompanyAssets }
  | { type: 'admin.change'; field: 'adminName' | 'adminEmail'; value: string }
  | { type: 'company.submit' }
  | { type: 'link.dismiss' };

const out = <T>(event: unknown) => (event as DoneActorEvent<T>).output;

/** The file's JSON object, or null. */
export function parseCompanyFile(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function isNewCompanyComplete(c: Pick<OperatorContext, 'file' | 'adminName' | 'adminEmail'>): boolean {
  return c.file !== null && c.adminName.trim() !== '' && c.adminName.trim().length <= 200 && v.is(emailSchema, c.adminEmail);
}

export const operatorMachine = setup({
  types: {} as { context: OperatorContext; events: OperatorEvent },
  actors: {
    loadCompanies: fromPromise<CompaniesAnswer, void>(async () => {
      throw new Error('loadCompanies not provided');
    }),
    createCompany: fromPromise<NewCompanyAnswer, NewCompany>(async () => {
      throw new Error('createCompany not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    assignCompanies: assign({ companies: ({ event }) => out<CompaniesAnswer>(event).companies ?? [] }),
    resetForm: assign({ file: null, fileName: '', assets: {}, adminName: '', adminEmail: '', problem: null }),
    assignAssets: assign({ assets: ({ event, context }) => (event.type === 'assets.choose' ? event.assets : context.assets) }),
    assignFile: assign(({ event }) => {
      if (event.type !== 'file.choose') return {};
      const file = parseCompanyFile(event.text);
      return { file, fileName: event.name.slice(0, 200), problem: file ? null : { kind: 'fileUnreadable' as const } };
    }),
    assignAdmin: assign(({ event }) => (event.type === 'admin.change' ? { [event.field]: event.value.slice(0, 254) } : {})),
    assignLink: assign(({ event }) => {
      const a = out<NewCompanyAnswer>(event);
      return { link: { companyId: a.companyId ?? '', url: a.enrolmentLink ?? '' }, file: null, fileName: '', assets: {}, adminName: '', adminEmail: '', problem: null };
    }),
    dropLink: assign({ link: null }),
    markRefused: assign({ problem: ({ event }) => ({ kind: 'fileRefused' as const, field: out<NewCompanyAnswer>(event).field }) }),
    markTaken: assign({ problem: { kind: 'taken' as const } }),
    markFailed: assign({ problem: { kind: 'failed' as const } }),
  },
  guards: {
    isOk: ({ event }) => out<{ status: number }>(event).status === 200,
    isCreated: ({ event }) => out<{ status: number }>(event).status === 201,
    isUnauthorizedAnswer: ({ event }) => out<{ status: number }>(event).status === 401,
    isFileRefused: ({ event }) => out<NewCompanyAnswer>(event).code === 'INVALID_COMPANY_FILE' || out<NewCompanyAnswer>(event).code === 'VALIDATION',
    isTaken: ({ event }) => out<NewCompanyAnswer>(event).status === 409,
    isComplete: ({ context }) => isNewCompanyComplete(context),
  },
}).createMachine({
  id: 'operatorCompanies',
  initial: 'loading',
  context: { companies: [], file: null, fileName: '', assets: {}, adminName: '', adminEmail: '', link: null, problem: null },
  states: {
    loading: {
      invoke: {
        id: 'loadCompanies',
        src: 'loadCompanies',
        onDone: [
          { guard: 'isOk', target: 'ready', actions: 'assignCompanies' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    ready: { on: { reload: 'loading', 'company.open': { target: 'editing', actions: 'resetForm' } } },
    editing: {
      on: {
        'file.choose': { actions: 'assignFile' },
        'assets.choose': { actions: 'assignAssets' },
        'admin.change': { actions: 'assignAdmin' },
        'company.submit': { guard: 'isComplete', target: 'creating' },
        'company.cancel': { target: 'ready', actions: 'resetForm' },
      },
    },
    creating: {
      invoke: {
        id: 'createCompany',
        src: 'createCompany',
        input: ({ context }) => ({ file: context.file!, assets: context.assets, adminName: context.adminName.trim(), adminEmail: context.adminEmail.trim() }),
        onDone: [
          { guard: 'isCreated', target: 'showingLink', actions: 'assignLink' },
          { guard: 'isFileRefused', target: 'editing', actions: 'markRefused' },
          { guard: 'isTaken', target: 'editing', actions: 'markTaken' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'editing', actions: 'markFailed' },
        ],
        onError: { target: 'editing', actions: 'markFailed' },
      },
    },
    showingLink: { on: { 'link.dismiss': { target: 'loading', actions: 'dropLink' } } },
    failed: { on: { reload: 'loading' } },
  },
});
