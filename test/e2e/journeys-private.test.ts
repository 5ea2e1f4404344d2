/**
 * Private-area journeys generated from the models of the chat composer, the identity
 * form and the review of a phone report's record (issue 7 item 3),
 * as test/e2e/journeys.test.ts does for the report channels: the model paths of
 * test/model/chat.model.ts, restricted to what a signed-in reporter can cause and cut
 * to a few covering ones, are replayed in Chromium on /private/messages against the
 * real server and its OpenID provider. Each event maps to a gesture through a table
 * typed by `ChatEvent`; after each step the page must show what the model says
 * (Send enabled or not, the failure alert, the attachments), and a sent message must
 * appear in the conversation.
 *
 * Out of a browser's reach against a healthy server: upload progress ticks, a cancel
 * raced against a fast upload, and 4xx/5xx or network failures. Those stay with
 * test/model/chat.test.ts, identityForm.test.ts and reportReview.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { pageTranslator, unrealizable, type Gesture, type T, type Unrealizable } from './journey-kit.ts';
import { createOnlineCase, createPhoneCase, firstOfficerId, signInThroughProvider, writeRecord } from './reporter.ts';
import { coverageOf, coveringPaths, describePath, modelPaths, pathEvents, traceStep, type MachineModel, type ModelPath } from '../model/harness.ts';
import chatModel from '../model/chat.model.ts';
import identityModel from '../model/identityForm.model.ts';
import type { ChatContext, ChatEvent, DraftFile } from '../../machines/chat.ts';
import type { IdentityContext, IdentityEvent } from '../../machines/identityForm.ts';
import reviewModel from '../model/reportReview.model.ts';
import type { ReportReviewEvent } from '../../machines/reportReview.ts';
import { LIMITS } from '../../machines/schema.ts';

const ctx = (s: AnyMachineSnapshot) => s.context as ChatContext;
const composer = (page: Page, t: T) => page.getByRole('form', { name: t('private.messages.composer') });

/** Content the server's sniffer accepts for each sample file's extension. */
function fileContent(f: DraftFile): Buffer {
  const ext = f.name.split('.').pop()!;
  const heads: Record<string, Buffer> = {
    pdf: Buffer.from('%PDF-1.4\n'),
    png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    mp4: Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom')]),
    txt: Buffer.from('text\n'),
    csv: Buffer.from('a,b\n'),
    exe: Buffer.from('MZ'),
  };
  const head = heads[ext];
  if (!head) throw new Error(`no sample content for .${ext}`);
  const pad = ext === 'txt' || ext === 'csv' ? 0x61 : 0x20;
  return Buffer.concat([head, Buffer.alloc(Math.max(0, f.size - head.length), pad)]);
}

/** What a browser reports for a picked file of this name. */
function mimeOf(name: string): string {
  const types: Record<string, string> = { pdf: 'application/pdf', png: 'image/png', mp4: 'video/mp4', txt: 'text/plain', csv: 'text/csv', exe: 'application/x-msdownload' };
  return types[name.split('.').pop()!] ?? 'application/octet-stream';
}

const userGestures = {
  'text.change': async ({ page, event, t }) => composer(page, t).getByLabel(t('private.messages.label'), { exact: true }).fill(event.text),
  'files.add': async ({ page, event, t }) =>
    composer(page, t)
      .locator('input[type="file"]')
      .setInputFiles(event.files.map((f) => ({ name: f.name, mimeType: f.type || mimeOf(f.name), buffer: fileContent(f) }))),
  'file.remove': async ({ page, event, before, t }) =>
    composer(page, t).getByRole('button', { name: t('private.messages.removeFile', { name: ctx(before).files[event.index]!.name }) }).click(),
  'message.send': async ({ page, t }) => composer(page, t).getByRole('button', { name: t('private.messages.send') }).click(),
  'message.cancel': unrealizable('a cancel cannot be timed against an upload to a local server'),
  'upload.progress': unrealizable('upload progress ticks come from the browser'),
  // The uploads end by themselves; the message call follows at once.
  'upload.finished': async () => {},
  'upload.failed': unrealizable('a healthy local server takes every upload'),
  'post.done': async ({ page, event, t }) => {
    if (event.status < 200 || event.status >= 300) throw new Error('unrealizable');
    await composer(page, t).getByRole('button', { name: t('private.messages.send') }).waitFor(); // Cancel gone: sending ended
  },
} satisfies { [K in ChatEvent['type']]: Gesture<Extract<ChatEvent, { type: K }>> | Unrealizable };

function canHappen(event: EventObject, before: AnyMachineSnapshot): boolean {
  const g = (userGestures as Record<string, Gesture<never> | Unrealizable>)[event.type];
  if (!g || 'unrealizable' in g) return false;
  if (event.type === 'post.done') return (event as Extract<ChatEvent, { type: 'post.done' }>).status === 201;
  // The file picker is disabled once five files are attached.
  if (event.type === 'files.add') return ctx(before).files.length < LIMITS.maxFiles;
  if (event.type === 'file.remove') return (event as Extract<ChatEvent, { type: 'file.remove' }>).index < ctx(before).files.length;
  return true;
}

const sameSnapshot = (a: AnyMachineSnapshot, b: AnyMachineSnapshot) =>
  JSON.stringify([a.value, a.context]) === JSON.stringify([b.value, b.context]);

/**
 * The paths a browser walks: only events a reporter can cause, and never a step that
 * changes nothing (it needs no gesture, so it must not count as walked), each cut
 * after a step that ends the visit (`end`).
 */
function walkablePaths(model: MachineModel, canHappen: (e: EventObject, s: AnyMachineSnapshot) => boolean, end?: (s: AnyMachineSnapshot) => boolean) {
  const paths = modelPaths(model, { filter: (e, s) => canHappen(e, s) && !sameSnapshot(s, traceStep(model, s, e).snapshot) });
  if (!end) return paths;
  const seen = new Set<string>();
  return paths
    .map((p) => {
      const stop = p.steps.findIndex((st) => end(st.state));
      return stop < 0 ? p : { ...p, steps: p.steps.slice(0, stop + 1), state: p.steps[stop]!.state, weight: stop };
    })
    .filter((p) => {
      const key = JSON.stringify(pathEvents(p));
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

async function expectPageShows(page: Page, s: AnyMachineSnapshot, t: T) {
  if (s.matches('sending')) return; // as long as the real upload takes
  const form = composer(page, t);
  const alert = form.getByRole('alert');
  await expect.poll(() => alert.count(), { message: 'the failure alert as the machine says' }).toBe(s.matches({ composing: 'failed' }) ? 1 : 0);
  const send = form.getByRole('button', { name: t('private.messages.send') });
  await expect.poll(() => send.isEnabled(), { message: 'Send enabled as the machine says' }).toBe(s.can({ type: 'message.send' }));
  const attached = form.getByRole('list', { name: t('private.messages.attached') }).getByRole('listitem');
  await expect.poll(() => attached.count(), { message: 'attachments' }).toBe(ctx(s).files.length);
  await expect.poll(() => form.getByLabel(t('private.messages.label'), { exact: true }).inputValue()).toBe(ctx(s).text);
}

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];
let caseNumber = '';
const PASSWORD = 'journey-pass-1';

let officerId = '';

/** A fresh online case whose reporter follows it anonymously; returns its case number. */
const newCase = () =>
  createOnlineCase(portal, { officerId, password: PASSWORD, relation: 'Employee', description: 'A case for the private-area journeys.', unit: 'Finance', repeated: false });

/** A fresh phone report whose record the handler has written (it can be commented on and approved once). */
const newPhoneCase = async () => {
  const number = await createPhoneCase(portal, { officerId, password: PASSWORD });
  await writeRecord(portal, number, 'The reporter called about double payments.');
  return number;
};

beforeAll(async () => {
  browser = await launchBrowser();
  portal = await startPortal();
  officerId = await firstOfficerId(portal);
  caseNumber = await newCase();
});
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

const signIn = (page: Page, to: string, number = caseNumber) => signInThroughProvider(portal, page, number, PASSWORD, to);

async function messagesInThread(): Promise<string[]> {
  const rows = await portal.server.ctx.db
    .selectFrom('case_message')
    .innerJoin('report_case', 'report_case.id', 'case_message.case_id')
    .select('case_message.id')
    .where('report_case.case_number', '=', caseNumber)
    .execute();
  return rows.map((r) => String(r.id));
}


describe('chat journeys from the model', () => {
  const walkable: ModelPath[] = walkablePaths(chatModel, canHappen);
  const journeys = coveringPaths(chatModel, walkable);

  it('cover every state and transition a browser can reach', () => {
    const row = coverageOf(chatModel, journeys);
    console.log(
      `chat: ${journeys.length} journeys take ${row.transitions.taken}/${row.transitions.total} transitions, ` +
        `reach ${row.states.reached}/${row.states.total} states; left to the model tests: ${row.transitions.missed.join(', ')}`,
    );
    expect(row.transitions.missed).toEqual(coverageOf(chatModel, walkable).transitions.missed);
    // post.done[4] is the budget's 429: this suite's server has budgets no journey meets;
    // test/e2e/message-limit.test.ts walks it against a server with a small one.
    for (const missed of row.transitions.missed) expect(missed).toMatch(/post\.done\[[1234]\]|upload\.failed|message\.cancel|upload\.progress/);
  });

  for (const journey of journeys) {
    it(describePath(journey), async () => {
      const o = await openPage(browser, { locale: 'en-GB' });
      opened.push(o);
      const { page } = o;
      page.setDefaultTimeout(10_000);
      await signIn(page, '/private/messages');
      const t = await pageTranslator(page, 'private');
      await composer(page, t).waitFor();
      const before0 = (await messagesInThread()).length;
      let sent = 0;
      for (let i = 1; i < journey.steps.length; i++) {
        const before = journey.steps[i - 1]!.state;
        const { event, state } = journey.steps[i]!;
        const where = `step ${i} (${event.type}) of ${pathEvents(journey).length}`;
        const gesture = (userGestures as unknown as Record<string, Gesture<EventObject> | Unrealizable>)[event.type]!;
        if ('unrealizable' in gesture) throw new Error(`${where}: ${gesture.unrealizable}`);
        await gesture({ page, event, before, t }).catch((e: Error) => {
          throw new Error(`${where}: ${e.message}`);
        });
        if (event.type === 'post.done') {
          sent++;
          const text = ctx(before).text.trim();
          if (text) await page.getByRole('list', { name: t('private.messages.thread') }).getByText(text, { exact: true }).last().waitFor();
        }
        await expectPageShows(page, state, t).catch((e: Error) => {
          throw new Error(`${where}, expecting ${JSON.stringify(state.value)}: ${e.message}`);
        });
      }
      if (journey.state.matches('sending')) {
        await composer(page, t).getByRole('button', { name: t('private.messages.send') }).waitFor();
        sent++;
      }
      await expect.poll(async () => (await messagesInThread()).length, { message: 'messages stored' }).toBe(before0 + sent);
    });
  }
});

// ---- the identity form of /private/info --------------------------------------------------

const ictx = (s: AnyMachineSnapshot) => s.context as IdentityContext;
const escapeRe = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A field by its label; a required field's label ends in a `*` that screen readers skip. */
const field = (scope: Page | Locator, label: string) => scope.getByLabel(new RegExp(`^${escapeRe(label)}\\s*\\*?$`));
const identityCard = (page: Page, t: T) => page.getByRole('region', { name: t('private.info.identity') });
const confirmDialog = (page: Page, t: T) => page.getByRole('alertdialog', { name: t('private.info.password.confirmTitle') });

const identityGestures = {
  'name.change': async ({ page, event, t }) => field(page, t('private.info.name')).fill(event.value),
  'email.change': async ({ page, event, t }) => field(page, t('private.info.email')).fill(event.value),
  'phone.change': async ({ page, event, t }) => field(page, t('private.info.phone')).fill(event.phone),
  'notification.change': async ({ page, event, t }) =>
    page.getByRole('checkbox', { name: t('private.info.notification') }).setChecked(event.checked),
  'identity.save': async ({ page, t }) => page.getByRole('button', { name: t('private.info.save'), exact: true }).click(),
  'password.change': async ({ page, t }) => page.getByRole('button', { name: t('private.info.password.change'), exact: true }).click(),
  'password.confirm': async ({ page, t }) => confirmDialog(page, t).getByRole('button', { name: t('private.info.password.confirm') }).click(),
  'password.cancel': async ({ page, t }) => confirmDialog(page, t).getByRole('button', { name: t('private.common.cancel') }).click(),
  // A sealed case's notification section (src/private/SealedNotify.tsx): these journeys run on server-keyed cases; test/e2e/sealed-notify.test.ts walks it.
  'notify.change': unrealizable('only a sealed case shows the notification section'),
  'notifyAddress.change': unrealizable('only a sealed case shows the notification section'),
  'notify.save': unrealizable('only a sealed case shows the notification section'),
} satisfies { [K in IdentityEvent['type']]: Gesture<Extract<IdentityEvent, { type: K }>> | Unrealizable };

/** The server's answers a healthy server gives: waited for, the next state is checked. */
const identityAnswers: Record<string, (e: EventObject & { output?: { status: number } }) => boolean> = {
  'xstate.done.actor.updateWhistleblower': (e) => e.output?.status === 200,
  'xstate.done.actor.requestPasswordUpdate': (e) => e.output?.status === 200,
};

function identityCanHappen(event: EventObject, before: AnyMachineSnapshot): boolean {
  const answer = identityAnswers[event.type];
  if (answer) return answer(event as EventObject & { output?: { status: number } });
  // A local server answers at once: nothing a reporter does fits between a request and its answer.
  if (before.matches({ form: 'saving' }) || before.matches({ password: 'requesting' })) return false;
  if (!(event.type in identityGestures)) return false; // failures, network errors
  if (event.type.startsWith('notify')) return false; // a sealed case's section: not on these cases
  if (event.type === 'name.change') return !ictx(before).nameLocked; // the field is disabled
  if (event.type === 'notification.change') return ictx(before).email.trim().length > 0; // disabled without an e-mail
  // The phone input formats what is typed: only numbers it keeps as typed.
  if (event.type === 'phone.change') {
    const phone = (event as Extract<IdentityEvent, { type: 'phone.change' }>).phone;
    // Emptying an empty field sends nothing.
    return phone === '+4512345678' || (phone === '' && ictx(before).phone !== '');
  }
  return true;
}

async function expectInfoShows(page: Page, s: AnyMachineSnapshot, t: T) {
  if (s.matches({ form: 'saving' }) || s.matches({ password: 'requesting' })) return;
  await expect.poll(() => confirmDialog(page, t).count(), { message: 'the password confirmation' }).toBe(s.matches({ password: 'confirming' }) ? 1 : 0);
  // The confirmation is modal: the rest of the page is hidden from the accessibility tree meanwhile.
  if (s.matches({ password: 'confirming' })) return;
  const card = identityCard(page, t);
  const alertText = (key: string) => card.getByRole('alert').filter({ hasText: t(key) });
  await expect.poll(() => alertText('private.info.invalid').count(), { message: 'the invalid-information error' }).toBe(
    s.matches({ form: { editing: 'invalid' } }) ? 1 : 0,
  );
  await expect.poll(() => card.getByRole('status').filter({ hasText: t('private.info.saved') }).count(), { message: 'saved' }).toBe(
    s.matches({ form: { editing: 'saved' } }) ? 1 : 0,
  );
  await expect.poll(() => field(page, t('private.info.name')).isDisabled(), { message: 'name locked' }).toBe(ictx(s).nameLocked);
}

async function storedIdentity(number: string) {
  return portal.server.ctx.db
    .selectFrom('report_case')
    .innerJoin('case_account', 'case_account.case_id', 'report_case.id')
    .select(['report_case.whistleblower_enc', 'case_account.must_change_password'])
    .where('report_case.case_number', '=', number)
    .executeTakeFirstOrThrow();
}

describe('identity form journeys from the model', () => {
  // A requested password change logs the reporter out: the visit ends there.
  const walkable: ModelPath[] = walkablePaths(identityModel, identityCanHappen, (st) => st.matches({ password: 'requested' }));
  const journeys = coveringPaths(identityModel, walkable);

  it('cover every state and transition a browser can reach', () => {
    const row = coverageOf(identityModel, journeys);
    console.log(
      `identityForm: ${journeys.length} journeys take ${row.transitions.taken}/${row.transitions.total} transitions, ` +
        `reach ${row.states.reached}/${row.states.total} states; left to the model tests: ${row.transitions.missed.join(', ')}`,
    );
    expect(row.transitions.missed).toEqual(coverageOf(identityModel, walkable).transitions.missed);
    // The notification region is a sealed case's (sealed-notify.test.ts and the model tests).
    for (const missed of row.transitions.missed) expect(missed).toMatch(/xstate\.(error|done)\.actor\.\w+\[[12]\]|xstate\.error\.actor|\.failed |^#identityForm\.notify[. ]/);
  });

  for (const journey of journeys) {
    it(describePath(journey), async () => {
      const number = await newCase(); // a fresh case: a saved name and a password change are for good
      const o = await openPage(browser, { locale: 'en-GB' });
      opened.push(o);
      const { page } = o;
      page.setDefaultTimeout(10_000);
      await signIn(page, '/private/info', number);
      const t = await pageTranslator(page, 'private');
      await identityCard(page, t).waitFor();
      for (let i = 1; i < journey.steps.length; i++) {
        const before = journey.steps[i - 1]!.state;
        const { event, state } = journey.steps[i]!;
        const where = `step ${i} (${event.type}) of ${pathEvents(journey).length}`;
        const gesture = (identityGestures as unknown as Record<string, Gesture<EventObject> | undefined>)[event.type];
        if (gesture) {
          await gesture({ page, event, before, t }).catch((e: Error) => {
            throw new Error(`${where}: ${e.message}`);
          });
        }
        if (state.matches({ password: 'requested' })) {
          // The server ended every sign-in of the case: the reporter is logged out, and the page says what comes next.
          await page.getByRole('heading', { level: 1, name: t('private.password.requested.title') }).waitFor();
          expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toMatch(/access_token/);
          expect((await storedIdentity(number)).must_change_password).toBe(true);
          return;
        }
        await expectInfoShows(page, state, t).catch((e: Error) => {
          throw new Error(`${where}, expecting ${JSON.stringify(state.value)}: ${e.message}`);
        });
      }
      const saved = journey.steps.some((st) => st.state.matches({ form: { editing: 'saved' } }));
      const stored = await storedIdentity(number);
      expect(stored.whistleblower_enc !== null, saved ? 'the identity is stored' : 'nothing was stored').toBe(saved);
    });
  }
});

// ---- comment on and approve a phone report's record (/private/report) ---------------------

const commentDialog = (page: Page, t: T) => page.getByRole('dialog', { name: t('private.report.comment.title') });
const approveDialog = (page: Page, t: T) => page.getByRole('alertdialog', { name: t('private.report.approve.title') });

const reviewGestures = {
  'comment.open': async ({ page, t }) => page.getByRole('button', { name: t('private.report.comment.open'), exact: true }).click(),
  'comment.change': async ({ page, event, t }) => field(commentDialog(page, t), t('private.report.comment.label')).fill(event.value),
  'comment.submit': async ({ page, t }) => commentDialog(page, t).getByRole('button', { name: t('private.report.comment.submit') }).click(),
  'comment.cancel': async ({ page, t }) => commentDialog(page, t).getByRole('button', { name: t('private.common.cancel') }).click(),
  'approval.open': async ({ page, t }) => page.getByRole('button', { name: t('private.report.approve.open'), exact: true }).click(),
  'approval.confirm': async ({ page, t }) => approveDialog(page, t).getByRole('button', { name: t('private.report.approve.confirm') }).click(),
  'approval.cancel': async ({ page, t }) => approveDialog(page, t).getByRole('button', { name: t('private.common.cancel') }).click(),
  'case.change': unrealizable("the case's channel and approval come from the server"),
} satisfies { [K in ReportReviewEvent['type']]: Gesture<Extract<ReportReviewEvent, { type: K }>> | Unrealizable };

const reviewAnswers: Record<string, (e: EventObject & { output?: { status: number } }) => boolean> = {
  'xstate.done.actor.sendComment': (e) => e.output?.status === 201,
  'xstate.done.actor.approveCase': (e) => e.output?.status === 200,
};

function reviewCanHappen(event: EventObject, before: AnyMachineSnapshot): boolean {
  const answer = reviewAnswers[event.type];
  if (answer) return answer(event as EventObject & { output?: { status: number } });
  const g = (reviewGestures as unknown as Record<string, Gesture<EventObject> | Unrealizable | undefined>)[event.type];
  if (!g || 'unrealizable' in g) return false;
  // A local server answers at once: nothing fits between a request and its answer.
  return !before.matches({ reviewing: 'sendingComment' }) && !before.matches({ reviewing: 'approving' });
}

async function expectReviewShows(page: Page, s: AnyMachineSnapshot, t: T) {
  if (s.matches({ reviewing: 'sendingComment' }) || s.matches({ reviewing: 'approving' })) return;
  const commenting = s.matches({ reviewing: 'commenting' });
  await expect.poll(() => commentDialog(page, t).count(), { message: 'the comment dialog' }).toBe(commenting ? 1 : 0);
  await expect.poll(() => approveDialog(page, t).count(), { message: 'the approval dialog' }).toBe(s.matches({ reviewing: 'confirmingApproval' }) ? 1 : 0);
  if (commenting) {
    const required = commentDialog(page, t).getByRole('alert').filter({ hasText: t('private.report.comment.required') });
    await expect.poll(() => required.count(), { message: 'the comment-required error' }).toBe(s.matches({ reviewing: { commenting: 'invalid' } }) ? 1 : 0);
    return; // the rest of the page is behind the modal dialog
  }
  if (s.matches({ reviewing: 'confirmingApproval' })) return;
  const status = (key: string) => page.getByRole('status').filter({ hasText: t(key) });
  await expect.poll(() => status('private.report.comment.sent').count(), { message: 'comment sent' }).toBe(s.matches({ reviewing: { idle: 'commentSent' } }) ? 1 : 0);
  await expect.poll(() => status('private.report.approved').count(), { message: 'approved' }).toBe(s.matches('approved') ? 1 : 0);
  const offered = page.getByRole('heading', { name: t('private.report.review.title') });
  await expect.poll(() => offered.count(), { message: 'the review offered' }).toBe(s.matches('reviewing') ? 1 : 0);
}

async function storedReview(number: string) {
  const row = await portal.server.ctx.db.selectFrom('report_case').select(['id', 'approved_at']).where('case_number', '=', number).executeTakeFirstOrThrow();
  const comments = await portal.server.ctx.db.selectFrom('case_comment').select('id').where('case_id', '=', row.id).execute();
  return { approved: row.approved_at !== null, comments: comments.length };
}

describe('record review journeys from the model', () => {
  const walkable: ModelPath[] = walkablePaths(reviewModel, reviewCanHappen);
  const journeys = coveringPaths(reviewModel, walkable);

  it('cover every state and transition a browser can reach', () => {
    const row = coverageOf(reviewModel, journeys);
    console.log(
      `reportReview: ${journeys.length} journeys take ${row.transitions.taken}/${row.transitions.total} transitions, ` +
        `reach ${row.states.reached}/${row.states.total} states; left to the model tests: ${row.transitions.missed.join(', ')}`,
    );
    expect(row.transitions.missed).toEqual(coverageOf(reviewModel, walkable).transitions.missed);
    for (const missed of row.transitions.missed) expect(missed).toMatch(/xstate\.(error|done)\.actor\.\w+\[[12]\]|xstate\.error\.actor|case\.change|#reportReview\.(deciding|locked)/);
  });

  for (const journey of journeys) {
    it(describePath(journey), async () => {
      const number = await newPhoneCase();
      const o = await openPage(browser, { locale: 'en-GB' });
      opened.push(o);
      const { page } = o;
      page.setDefaultTimeout(10_000);
      await signIn(page, '/private/report', number);
      const t = await pageTranslator(page, 'private');
      await page.getByRole('heading', { name: t('private.report.review.title') }).waitFor();
      let comments = 0;
      for (let i = 1; i < journey.steps.length; i++) {
        const before = journey.steps[i - 1]!.state;
        const { event, state } = journey.steps[i]!;
        const where = `step ${i} (${event.type}) of ${pathEvents(journey).length}`;
        const gesture = (reviewGestures as unknown as Record<string, Gesture<EventObject> | Unrealizable | undefined>)[event.type];
        if (gesture && 'unrealizable' in gesture) throw new Error(`${where}: ${gesture.unrealizable}`);
        if (gesture) {
          await gesture({ page, event, before, t }).catch((e: Error) => {
            throw new Error(`${where}: ${e.message}`);
          });
        }
        if (event.type === 'xstate.done.actor.sendComment') comments++;
        await expectReviewShows(page, state, t).catch((e: Error) => {
          throw new Error(`${where}, expecting ${JSON.stringify(state.value)}: ${e.message}`);
        });
      }
      const approved = journey.steps.some((st) => st.state.matches('approved'));
      await expect.poll(() => storedReview(number), { message: 'what the server stored' }).toEqual({ approved, comments });
    });
  }
});
