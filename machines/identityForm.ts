/**
 * The identity and contact form of /private/info, and the password-change request
 * beside it (spec §4 Password change, §5 Private identity form, §8).
 *
 * Invariants:
 * - Valid when a name is given and: phone and e-mail both given → both valid; only
 *   a phone → phone valid; only an e-mail → e-mail valid; neither → the name alone.
 *   Phone validity comes from the phone input and the shared E.164 rule.
 * - An invalid save shows the your-info error (`form.editing.invalid`) and sends
 *   nothing.
 * - The name cannot change once the case has one (`nameLocked`).
 * - Changing the password is confirmed first (a substate, rendered as an
 *   AlertDialog); after the server's 200 the reporter is logged out (`logOut`) and
 *   chooses the new password at the next sign-in.
 * - A sealed case's e-mail notification (region `notify`, docs/decisions/sealed-reporter-
 *   pages.md "The notification address"): its address is sealed apart, to the mail key,
 *   and this page cannot read the stored one, so turning it on asks for the address
 *   again (`notifyErrors`: a valid e-mail address), and turning it off needs none. It is
 *   saved on its own (`notify.save`), apart from the identity: an anonymous reporter may
 *   be told there is news without giving a name. `notifyStored` follows the server's 200.
 */
import * as v from 'valibot';
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { emailSchema, internationalPhoneSchema } from './schema.ts';

export interface IdentityInput {
  whistleblower: {
    name?: string | null;
    email?: string | null;
    phone?: string | null;
    phoneCountryCode?: string | null;
    notification?: boolean;
  } | null;
  /** A sealed case: whether a notification address is stored now (absent on a server-keyed case). */
  notifyStored?: boolean;
}

export interface IdentityContext {
  name: string;
  email: string;
  phone: string;
  phoneCountryCode: string;
  /** What the phone input said about the number typed. */
  phoneValid: boolean;
  notification: boolean;
  nameLocked: boolean;
  /** A sealed case: whether a notification address is stored (the server said so, or our last save). */
  notifyStored: boolean;
  /** The checkbox: notification wanted. */
  notifyWanted: boolean;
  /** The address typed for notifications (never the stored one: it cannot be read here). */
  notifyAddress: string;
}

/** What a sealed case's notification save sends: on with the address to seal, or off. */
export interface NotifyWish {
  on: boolean;
  address: string;
}

export interface WhistleblowerDto {
  name: string;
  email: string | null;
  phone: string | null;
  phoneCountryCode: string | null;
  notification: boolean;
}

export type IdentityEvent =
  | { type: 'name.change'; value: string }
  | { type: 'email.change'; value: string }
  | { type: 'phone.change'; phone: string; countryCode: string; isValid: boolean }
  | { type: 'notification.change'; checked: boolean }
  | { type: 'identity.save' }
  | { type: 'notify.change'; checked: boolean }
  | { type: 'notifyAddress.change'; value: string }
  | { type: 'notify.save' }
  | { type: 'password.change' }
  | { type: 'password.confirm' }
  | { type: 'password.cancel' };

export interface CallResult {
  status: number;
}

export function isEmailValid(email: string) {
  return v.is(emailSchema, email);
}
export function isPhoneValid(c: Pick<IdentityContext, 'phone' | 'phoneValid'>) {
  return c.phoneValid && v.is(internationalPhoneSchema, c.phone);
}
/** Spec §5: which fields are invalid, for labels; empty when the form may be saved. */
export function identityErrors(c: Pick<IdentityContext, 'name' | 'email' | 'phone' | 'phoneValid'>): Array<'name' | 'email' | 'phone'> {
  const errors: Array<'name' | 'email' | 'phone'> = [];
  if (!c.name.trim()) errors.push('name');
  if (c.email.trim() && !isEmailValid(c.email)) errors.push('email');
  if (c.phone.trim() && !isPhoneValid(c)) errors.push('phone');
  return errors;
}

/** Which notification fields are invalid: on needs a valid address typed here; off needs nothing. */
export function notifyErrors(c: Pick<IdentityContext, 'notifyWanted' | 'notifyAddress'>): Array<'notifyAddress'> {
  return c.notifyWanted && !isEmailValid(c.notifyAddress.trim()) ? ['notifyAddress'] : [];
}

export function toNotifyWish(c: Pick<IdentityContext, 'notifyWanted' | 'notifyAddress'>): NotifyWish {
  return { on: c.notifyWanted, address: c.notifyWanted ? c.notifyAddress.trim() : '' };
}

export function toWhistleblowerDto(c: IdentityContext): WhistleblowerDto {
  const email = c.email.trim();
  const phone = c.phone.trim();
  return {
    name: c.name.trim(),
    email: email || null,
    phone: phone || null,
    phoneCountryCode: phone ? c.phoneCountryCode || null : null,
    notification: c.notification && !!email,
  };
}

const status = (event: unknown) => (event as DoneActorEvent<CallResult>).output.status;

export const identityFormMachine = setup({
  types: {} as { context: IdentityContext; events: IdentityEvent; input: IdentityInput },
  actors: {
    updateWhistleblower: fromPromise<CallResult, WhistleblowerDto>(async () => {
      throw new Error('updateWhistleblower not provided');
    }),
    requestPasswordUpdate: fromPromise<CallResult, void>(async () => {
      throw new Error('requestPasswordUpdate not provided');
    }),
    changeNotification: fromPromise<CallResult, NotifyWish>(async () => {
      throw new Error('changeNotification not provided');
    }),
  },
  actions: {
    reloadCase: () => {},
    reportUnauthorized: () => {},
    logOut: () => {},
    assignName: assign({ name: ({ event, context }) => (event.type === 'name.change' ? event.value : context.name) }),
    assignEmail: assign({ email: ({ event, context }) => (event.type === 'email.change' ? event.value : context.email) }),
    assignPhone: assign(({ event, context }) =>
      event.type === 'phone.change'
        ? { phone: event.phone, phoneCountryCode: event.countryCode, phoneValid: event.isValid }
        : context,
    ),
    assignNotification: assign({
      notification: ({ event, context }) => (event.type === 'notification.change' ? event.checked : context.notification),
    }),
    assignNotifyWanted: assign({
      notifyWanted: ({ event, context }) => (event.type === 'notify.change' ? event.checked : context.notifyWanted),
    }),
    assignNotifyAddress: assign({
      notifyAddress: ({ event, context }) => (event.type === 'notifyAddress.change' ? event.value : context.notifyAddress),
    }),
    // The address is sealed and sent: the page forgets what was typed.
    assignNotifyStored: assign(({ context }) => ({ notifyStored: context.notifyWanted, notifyAddress: '' })),
    lockName: assign({ nameLocked: ({ context }) => context.name.trim().length > 0 }),
  },
  guards: {
    isNameEditable: ({ context }) => !context.nameLocked,
    isValid: ({ context }) => identityErrors(context).length === 0,
    isNotifyValid: ({ context }) => notifyErrors(context).length === 0,
    isOk: ({ event }) => status(event) === 200,
    isUnauthorizedAnswer: ({ event }) => [401, 403].includes(status(event)),
  },
}).createMachine({
  id: 'identityForm',
  type: 'parallel',
  context: ({ input }) => {
    const w = input.whistleblower;
    const name = w?.name?.trim() ?? '';
    return {
      name,
      email: w?.email ?? '',
      phone: w?.phone ?? '',
      phoneCountryCode: w?.phoneCountryCode ?? '',
      phoneValid: !!w?.phone,
      notification: !!w?.notification,
      nameLocked: name.length > 0,
      notifyStored: !!input.notifyStored,
      notifyWanted: !!input.notifyStored,
      notifyAddress: '',
    };
  },
  states: {
    form: {
      initial: 'editing',
      states: {
        editing: {
          initial: 'clean',
          on: {
            'name.change': { guard: 'isNameEditable', target: '.clean', actions: 'assignName' },
            'email.change': { target: '.clean', actions: 'assignEmail' },
            'phone.change': { target: '.clean', actions: 'assignPhone' },
            'notification.change': { target: '.clean', actions: 'assignNotification' },
            'identity.save': [{ guard: 'isValid', target: 'saving' }, { target: '.invalid' }],
          },
          states: {
            clean: {},
            /** The your-info error is shown; nothing was sent. */
            invalid: {},
            saved: {},
            failed: {},
          },
        },
        saving: {
          invoke: {
            id: 'updateWhistleblower',
            src: 'updateWhistleblower',
            input: ({ context }) => toWhistleblowerDto(context),
            onDone: [
              { guard: 'isOk', target: 'editing.saved', actions: ['lockName', 'reloadCase'] },
              { guard: 'isUnauthorizedAnswer', target: 'editing.failed', actions: 'reportUnauthorized' },
              { target: 'editing.failed' },
            ],
            onError: 'editing.failed',
          },
        },
      },
    },
    notify: {
      initial: 'editing',
      states: {
        editing: {
          initial: 'clean',
          on: {
            'notify.change': { target: '.clean', actions: 'assignNotifyWanted' },
            'notifyAddress.change': { target: '.clean', actions: 'assignNotifyAddress' },
            'notify.save': [{ guard: 'isNotifyValid', target: 'saving' }, { target: '.invalid' }],
          },
          states: {
            clean: {},
            /** On without a valid address: nothing was sent. */
            invalid: {},
            saved: {},
            failed: {},
          },
        },
        saving: {
          invoke: {
            id: 'changeNotification',
            src: 'changeNotification',
            input: ({ context }) => toNotifyWish(context),
            onDone: [
              { guard: 'isOk', target: 'editing.saved', actions: 'assignNotifyStored' },
              { guard: 'isUnauthorizedAnswer', target: 'editing.failed', actions: 'reportUnauthorized' },
              { target: 'editing.failed' },
            ],
            onError: 'editing.failed',
          },
        },
      },
    },
    password: {
      initial: 'idle',
      states: {
        idle: { on: { 'password.change': 'confirming' } },
        confirming: { on: { 'password.confirm': 'requesting', 'password.cancel': 'idle' } },
        requesting: {
          invoke: {
            id: 'requestPasswordUpdate',
            src: 'requestPasswordUpdate',
            onDone: [
              { guard: 'isOk', target: 'requested' },
              { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
              { target: 'failed' },
            ],
            onError: 'failed',
          },
        },
        failed: { on: { 'password.change': 'confirming' } },
        /** Accepted: the reporter is logged out and sets the new password at next sign-in. */
        requested: { entry: 'logOut' },
      },
    },
  },
});
