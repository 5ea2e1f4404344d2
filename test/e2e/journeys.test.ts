/**
 * Browser journeys generated from the report models (issue 7 item 3): the model paths
 * of test/model/<channel>Report.model.ts, cut to a few that still take every
 * transition a browser can trigger (`coveringPaths`), are replayed in real Chromium
 * against the real server. Each event maps to a user gesture through a table typed
 * by the machine's own event union, so a new event does not compile without its
 * gesture. After each step the page must show what the model's state says: the
 * dialogs open (by role and name), the rest closed. A path ending in a sent report
 * checks that the server stored one more case.
 *
 * Some model events have no gesture against the real server: a failed company load,
 * a failed or empty send, upload progress ticks, and `form.reset` (no view sends it).
 * They are marked `unrealizable` with the reason, and paths needing them stay with
 * the model tests (test/model/report*.test.ts), which drive the machine directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { pageTranslator, unrealizable, type Gesture, type T, type Unrealizable } from './journey-kit.ts';
import { coverageOf, coveringPaths, describePath, modelPaths, pathEvents, traceStep, type MachineModel, type ModelPath } from '../model/harness.ts';
import { reportModel } from '../model/report.kit.ts';
import type { CompanyInfo, ReportChannel, ReportContext, ReportEvent, SuccessData } from '../../machines/report.ts';

const ctx = (s: AnyMachineSnapshot) => s.context as ReportContext;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A field by its label; a required field's label ends in a `*` that screen readers skip. */
const field = (page: Page, label: string) => page.getByLabel(new RegExp(`^${escapeRe(label)}\\s*\\*?$`));
const radio = (page: Page, name: string) => page.getByRole('radio', { name, exact: true });
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

function fileContent(name: string, size: number): Buffer {
  const head = name.endsWith('.pdf') ? '%PDF-1.4\n' : name.endsWith('.txt') ? 'text\n' : '';
  if (!head) throw new Error(`journeys: no sample content for ${name}`);
  return Buffer.concat([Buffer.from(head), Buffer.alloc(Math.max(0, size - head.length), 0x20)]);
}

/** One gesture per event the report machine's views can send (the machine's own union). */
const userGestures = {
  'subsidiary.select': async ({ page, event, before, t }) => {
    const index = ctx(before).company.subsidiaries.findIndex((s) => s.id === event.id);
    await field(page, t('forms.subsidiary.label')).selectOption({ index: index + 1 }); // option 0: not specified
  },
  'officer.select': async ({ page, event, before, t }) => {
    const index = ctx(before).company.protectionOfficers.findIndex((o) => o.id === event.id);
    await page.getByRole('group', { name: t('forms.officer.legend') }).getByRole('radio').nth(index).check();
  },
  'relation.change': async ({ page, event, t }) => field(page, t('forms.relation.label')).fill(event.value),
  'description.change': async ({ page, event, t }) => field(page, t('forms.describe.description')).fill(event.value),
  'violation.select': async ({ page, event, t }) => {
    await field(page, t('forms.describe.violation')).selectOption(event.value);
  },
  'repeated.choose': async ({ page, event, t }) =>
    page.getByRole('group', { name: t('forms.describe.repeated') }).getByRole('radio', { name: t(event.value ? 'forms.yes' : 'forms.no') }).check(),
  'concerns.choose': async ({ page, event, t }) => radio(page, t(`forms.related.${event.value}`)).click(),
  'person.change': async ({ page, event, t }) => field(page, t(`forms.related.${event.field}`)).fill(event.value),
  'person.add': async ({ page, t }) => button(page, t('forms.related.add')).click(),
  'person.remove': async ({ page, event, before, t }) => {
    const person = ctx(before).draft.reportedPersons[event.index]!;
    await button(page, t('forms.related.remove', { name: person.name })).click();
  },
  'unit.change': async ({ page, event, t }) => field(page, t('forms.related.unit')).fill(event.value),
  'files.add': async ({ page, event }) => {
    await page.locator('input[type="file"]').setInputFiles(
      // Real content for the type: the server sniffs the first bytes of every file.
      event.files.map((f) => ({ name: f.name, mimeType: f.type, buffer: fileContent(f.name, f.size) })),
    );
  },
  'file.remove': async ({ page, event, before, t }) => {
    const file = ctx(before).draft.files[event.index]!;
    await button(page, t('forms.documents.remove', { name: file.name })).click();
  },
  'identity.choose': async ({ page, event, t }) => radio(page, t(`forms.identity.${event.value}`)).click(),
  'identity.change': async ({ page, event, t }) => field(page, t(`forms.identity.${event.field}`)).fill(event.value),
  'phone.change': async ({ page, event, t }) => field(page, t('forms.identity.phone')).fill(event.phone),
  'notification.toggle': async ({ page, event, t }) =>
    page.getByRole('checkbox', { name: t('forms.identity.notification') }).setChecked(event.value),
  'follow.choose': async ({ page, event, t }) => radio(page, t(event.value ? 'forms.follow.follow' : 'forms.follow.notFollow')).click(),
  'password.change': async ({ page, event, t }) => field(page, t('forms.follow.password')).fill(event.value),
  'passwordConfirmation.change': async ({ page, event, t }) => field(page, t('forms.follow.confirm')).fill(event.value),
  'terms.toggle': async ({ page, event, t }) => page.getByRole('checkbox', { name: t('forms.terms.accept') }).setChecked(event.value),
  'discard.confirm': async ({ page, t }) => button(page, t('dialog.discard.continue')).click(),
  'discard.cancel': async ({ page, t }) => button(page, t('dialog.discard.back')).click(),
  'report.submit': async ({ page, before, t }) => button(page, t(`forms.send.${ctx(before).channel}`)).click(),
  'dialog.close': async ({ page, before, t }) => {
    if (before.hasTag('validationDialog')) return button(page, t('dialog.validation.ok')).click();
    if (before.hasTag('failureDialog')) return button(page, t('dialog.failure.close')).click();
    if (before.hasTag('rateLimitDialog')) return button(page, t('forms.rateLimited.close')).click();
    // The success dialog: "Close" when following the case, "Go to the front page" otherwise.
    const close = ctx(before).draft.follow ? 'forms.success.close' : 'forms.success.frontPage';
    return button(page, t(close)).click();
  },
  'close.confirm': async ({ page, t }) => button(page, t('forms.success.closeConfirm.close')).click(),
  'close.cancel': async ({ page, t }) => button(page, t('forms.success.closeConfirm.back')).click(),
  'caseNumber.copy': async ({ page, t }) => button(page, t('forms.success.copy')).click(),
  'login.start': async ({ page, t }) => button(page, t('forms.success.login')).click(),
  'upload.progress': unrealizable('upload progress ticks come from the browser, not from the reporter'),
  'form.reset': unrealizable('no view sends form.reset'),
  // A recording needs Chromium's fake microphone: test/e2e/voice.test.ts records, attaches and removes one.
  'voice.attach': unrealizable('a voice message is recorded with the fake microphone in test/e2e/voice.test.ts'),
  'voice.remove': unrealizable('a voice message is removed in test/e2e/voice.test.ts'),
} satisfies { [K in ReportEvent['type']]: Gesture<Extract<ReportEvent, { type: K }>> | Unrealizable };

/** What the system does, not the reporter: waited for, or out of reach of a real server. */
function systemGesture(event: EventObject): Gesture<EventObject> | Unrealizable {
  const e = event as EventObject & { output?: unknown };
  if (e.type === 'xstate.done.actor.loadCompanyInfo') {
    return async ({ page, t, before }) => {
      await page.getByRole('heading', { name: t(`forms.${ctx(before).channel}.title`) }).waitFor();
      await page.locator('section[data-step]').first().waitFor();
    };
  }
  if (e.type === 'xstate.done.actor.submitReport') {
    if (!(e.output as SuccessData | null)?.caseDto) return unrealizable('the real server answers a sent report with its case (its budget is not reached here)');
    return async () => {}; // the success dialog is checked as the next state
  }
  if (e.type === 'xstate.done.actor.reserveCase') {
    // A followed case reserves its number and salt by itself (issue 37); only a granted one is a healthy server's answer.
    if (!(e.output as { reservation?: string } | null)?.reservation) return unrealizable('the real server grants a reservation (its budget is not reached here)');
    return async () => {};
  }
  if (e.type === 'xstate.done.actor.checkKeyLog') {
    // Sealing is on (the default), but the journeys' demo company has no recovery key: its key log says so, and the form sends the plain way.
    if (!(e.output as { plain?: boolean } | null)?.plain) return unrealizable('the demo company has no recovery key, so it takes no sealed cases: test/e2e/sealed-reporter.test.ts seals, and refuses a swapped key');
    return async () => {};
  }
  if (e.type === 'xstate.done.actor.sealReport') return unrealizable('the demo company has no recovery key, so it takes no sealed cases: test/e2e/sealed-reporter.test.ts seals');
  if (e.type === 'xstate.done.actor.uploadSealedFiles') return unrealizable('the demo company has no recovery key, so it takes no sealed cases: test/e2e/sealed-reporter.test.ts seals and uploads files');
  if (e.type === 'xstate.done.actor.deriveReporterKeys') {
    // The page derives the verifier by itself (Argon2id); nothing shows it but the busy form.
    return async () => {};
  }
  if (e.type === 'xstate.done.actor.solveProofOfWork') {
    // The page's worker solves the challenge by itself while the reporter types; nothing
    // on the page shows it, and a send that comes first waits for it (busy, like sending).
    return async () => {};
  }
  if (e.type.startsWith('xstate.after.copiedHint.')) {
    // The 2-second hint runs out by itself: wait for it.
    return async ({ page, t }) => {
      await expect.poll(() => page.getByText(t('forms.success.copied'), { exact: true }).count(), { timeout: 5000 }).toBe(0);
    };
  }
  if (e.type.startsWith('xstate.error.actor.')) return unrealizable('the real server is not made to fail here');
  return unrealizable(`no gesture for ${e.type}`);
}

function gestureFor(event: EventObject): Gesture<EventObject> | Unrealizable {
  const user = (userGestures as Record<string, Gesture<never> | Unrealizable>)[event.type];
  return (user as Gesture<EventObject> | Unrealizable | undefined) ?? systemGesture(event);
}

// ---- which model paths a browser can walk ------------------------------------------------

/** The demo company whose real company info matches the model's sample. */
function hostFor(info: CompanyInfo): string | undefined {
  if (info.subsidiaries.length > 0 && info.protectionOfficers.length > 1) return 'group.localhost'; // 3 officers, 3 subsidiaries
  if (info.subsidiaries.length === 0 && info.protectionOfficers.length === 1) return 'localhost'; // 1 officer
  return undefined;
}

const sameSnapshot = (a: AnyMachineSnapshot, b: AnyMachineSnapshot) =>
  JSON.stringify([a.value, a.context]) === JSON.stringify([b.value, b.context]);

/** Events that leave the form page: nothing can follow them in the same journey. */
const leavesPage = (event: EventObject, before: AnyMachineSnapshot) =>
  (event.type === 'close.confirm' || event.type === 'login.start') && before.hasTag('successDialog');

/**
 * Controls the views show only in some situations. The machine accepts these events
 * at any time (a hidden field keeps its value), but a reporter can only send them
 * when the control is there, so a path that needs them elsewhere is no journey.
 */
const controlShown: { [K in ReportEvent['type']]?: (c: ReportContext, e: Extract<ReportEvent, { type: K }>) => boolean } = {
  'password.change': (c) => c.draft.follow === true,
  'passwordConfirmation.change': (c) => c.draft.follow === true,
  // A lone protection officer is shown as who receives the report: nothing to choose.
  'officer.select': (c) => c.company.protectionOfficers.length > 1,
  'person.change': (c) => c.draft.concerns === 'persons',
  'person.add': (c) => c.draft.concerns === 'persons',
  'person.remove': (c, e) => c.draft.concerns === 'persons' && e.index < c.draft.reportedPersons.length,
  'unit.change': (c) => c.draft.concerns === 'company',
  'identity.change': (c) => c.draft.identity === 'reveal',
  'phone.change': (c) => c.draft.identity === 'reveal',
  'notification.toggle': (c) => c.draft.identity === 'reveal',
  'file.remove': (c, e) => e.index < c.draft.files.length,
  // The case number, its copy button and the log-in button are for a reporter who follows the case.
  'caseNumber.copy': (c) => c.draft.follow === true,
  'login.start': (c) => c.draft.follow === true,
};
const isShown = (event: EventObject, before: AnyMachineSnapshot) =>
  (controlShown as Record<string, ((c: ReportContext, e: EventObject) => boolean) | undefined>)[event.type]?.(ctx(before), event) ?? true;

/** Whether a reporter can make this event happen in this snapshot (a no-op needs nothing). */
function canHappen(event: EventObject, before: AnyMachineSnapshot): boolean {
  if (event.type === 'xstate.done.actor.loadCompanyInfo') return !!hostFor((event as EventObject & { output: CompanyInfo }).output);
  return !('unrealizable' in gestureFor(event)) && isShown(event, before);
}

/**
 * The model as a reporter sees it: the views show some things the machine's guards
 * never read (the case number only to a reporter who follows the case, a remove
 * button per added person or file), so the walk keeps them apart, can remove what
 * was added, and picks another subsidiary or kind of wrongdoing for real.
 */
function journeyModel(model: MachineModel): MachineModel {
  const view = (s: AnyMachineSnapshot) => {
    const d = ctx(s).draft;
    return { follow: d.follow, persons: Math.min(d.reportedPersons.length, 2), files: Math.min(d.files.length, 2) };
  };
  return {
    ...model,
    events: (s) => {
      const base = typeof model.events === 'function' ? model.events(s) : model.events;
      const v = view(s);
      const c = ctx(s);
      const firstSubsidiary = c.company.subsidiaries[0]?.id ?? null;
      return [
        ...base,
        ...(v.persons ? [{ type: 'person.remove', index: 0 }] : []),
        ...(v.files ? [{ type: 'file.remove', index: 0 }] : []),
        // The model re-sends the current choice (a change the machine cannot tell); a reporter picks another.
        ...(firstSubsidiary ? [{ type: 'subsidiary.select', id: c.draft.subsidiary === firstSubsidiary ? null : firstSubsidiary }] : []),
        ...(c.channel === 'online' ? [{ type: 'violation.select', value: c.draft.violation === 'FRAUD' ? 'THEFT' : 'FRAUD' }] : []),
      ];
    },
    serializeState: (s) => `${(model.serializeState ?? JSON.stringify)(s)} ${JSON.stringify(view(s))}`,
  };
}

/**
 * The journeys' paths: walked only through events a reporter can cause (so the
 * shortest paths take the detours a browser must), each cut after an event that
 * leaves the form page.
 */
function walkablePaths(model: MachineModel): ModelPath[] {
  // A step that changes nothing needs no gesture, and a skipped step must not count as walked.
  const jm = journeyModel(model);
  const paths = modelPaths(jm, { filter: (e, s) => canHappen(e, s) && !sameSnapshot(s, traceStep(jm, s, e).snapshot) });
  const cut = paths.map((p) => {
    const leave = p.steps.findIndex((s, i) => i > 0 && leavesPage(s.event, p.steps[i - 1]!.state));
    return leave < 0 ? p : { ...p, steps: p.steps.slice(0, leave + 1), state: p.steps[leave]!.state, weight: leave };
  });
  const seen = new Set<string>();
  return cut.filter((p) => {
    const key = JSON.stringify(pathEvents(p));
    if (seen.has(key)) return false;
    seen.add(key);
    return p.steps.length > 1;
  });
}

// ---- what the page must show ---------------------------------------------------------------

async function expectPageShows(page: Page, s: AnyMachineSnapshot, t: T) {
  const channel = ctx(s).channel;
  // Sending lasts as long as the real server takes: the next step waits for its answer.
  if (s.hasTag('busy')) return;
  const dialogs: Array<[tag: string, role: 'dialog' | 'alertdialog', title: string]> = [
    ['validationDialog', 'alertdialog', t('dialog.validation.title')],
    ['discardDialog', 'alertdialog', t('dialog.discard.title')],
    ['failureDialog', 'alertdialog', t('dialog.failure.title')],
    ['rateLimitDialog', 'alertdialog', t('forms.rateLimited.title')],
    ['successDialog', 'dialog', t(`forms.success.${channel}.title`)],
    ['closeConfirmation', 'alertdialog', t('forms.success.closeConfirm.title')],
  ];
  for (const [tag, role, title] of dialogs) {
    // Behind the close confirmation the success dialog is hidden from the accessibility tree.
    if (tag === 'successDialog' && s.hasTag('closeConfirmation')) continue;
    const dialog = page.getByRole(role, { name: title });
    if (s.hasTag(tag)) await dialog.waitFor({ state: 'visible' });
    else await expect.poll(() => dialog.count(), { message: `${tag} should be closed` }).toBe(0);
  }
  if (s.hasTag('successDialog') && !s.hasTag('closeConfirmation')) {
    // The case number, grouped by four, followed or not (docs/decisions/reporter-spec-deviations.md).
    const caseNumber = page.getByTestId('case-number');
    await expect.poll(() => caseNumber.textContent()).toMatch(/^\d{4}\s\d{4}\s\d{4}\s\d{4}$/);
    const copied = page.getByText(t('forms.success.copied'), { exact: true });
    await expect.poll(() => copied.count(), { message: 'the copied hint as the machine says' }).toBe(s.hasTag('copied') ? 1 : 0);
  }
  if (s.matches({ editing: 'steps' })) {
    const send = button(page, t(`forms.send.${channel}`));
    await expect.poll(() => send.isEnabled(), { message: 'Send enabled as the machine says' }).toBe(s.can({ type: 'report.submit' }));
  }
}

// ---- the journeys --------------------------------------------------------------------------

const ROUTES: Record<ReportChannel, string> = { online: '/online-form', oral: '/oral-report', meeting: '/book-meeting' };

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  portal = await startPortal();
  browser = await launchBrowser();
});
afterAll(async () => {
  for (const p of opened) await p.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

async function countCases(): Promise<number> {
  const row = await portal.server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

for (const channel of ['online', 'oral', 'meeting'] as const) {
  const model = reportModel(channel);
  const walkable = walkablePaths(model);
  const journeys = coveringPaths(model, walkable);

  describe(`${channel} report journeys from the model`, () => {
    it('cover every state and transition a browser can reach', () => {
      const row = coverageOf(model, journeys);
      const reachable = coverageOf(model, walkable);
      console.log(
        `${channel}: ${journeys.length} journeys (of ${walkable.length} walkable model paths) take ` +
          `${row.transitions.taken}/${row.transitions.total} transitions, reach ${row.states.reached}/${row.states.total} states; ` +
          `left to the model tests: ${row.transitions.missed.join(', ')}`,
      );
      expect(row.transitions.missed).toEqual(reachable.transitions.missed);
      expect(row.states.missed).toEqual(reachable.states.missed);
      // What a browser cannot reach must be only what needs a failing server or a timer tick from the network.
      for (const missed of row.transitions.missed) {
        // submitReport[1] to [4]: a rate-limit refusal, a refused file, no answer (offline: test/e2e/reporter-promises.test.ts
        // walks it with the browser offline) and a null answer, which a healthy server does not give.
        // loadingCompany's `always`: the company info in the form's input. A browser opens
        // the form that way whenever the page brought the info; the journeys write it as
        // the company's answer, which picks their host and leads to the same state. The
        // branch itself is walked by the model tests (test/model, reportModelWithCompany).
        // reserveCase[1] to [3]: a rate-limit refusal, no answer, a null answer (as submitReport's).
        // checkKeyLog[1] to [5], sealReport, uploadSealedFiles and keysRefused: the demo company has no recovery key, so it takes no sealed cases
        // (test/e2e/sealed-reporter.test.ts seals, with files and a notification address, and is refused a swapped key).
        expect(missed).toMatch(/xstate\.(error\.actor|done\.actor\.(submitReport\[[1234]\]|reserveCase\[[123]\]|checkKeyLog\[[1-5]\]|sealReport\[\d\]|uploadSealedFiles\[\d\]))|upload\.progress|form\.reset|voice\.(attach|remove)|\.(failed(\.\w+)?|rateLimited|keysRefused) |\.loadingCompany always\[0\]$/);
      }
    });

    for (const journey of journeys) {
      it(describePath(journey), async () => {
        const first = journey.steps[1]!.event as EventObject & { output: CompanyInfo };
        const host = hostFor(first.output)!;
        const o = await openPage(browser, { locale: 'en-GB' });
        opened.push(o);
        const { page } = o;
        page.setDefaultTimeout(10_000);
        const casesBefore = await countCases();
        await page.goto(portal.url(host, ROUTES[channel]));
        await page.locator('section[data-step]').first().waitFor();
        const t = await pageTranslator(page, 'forms');
        for (let i = 1; i < journey.steps.length; i++) {
          const before = journey.steps[i - 1]!.state;
          const { event, state } = journey.steps[i]!;
          const gesture = gestureFor(event);
          const where = `step ${i} (${event.type}) of ${pathEvents(journey).length}`;
          if ('unrealizable' in gesture) throw new Error(`${where}: ${gesture.unrealizable}`);
          await gesture({ page, event, before, t }).catch((e: Error) => {
            throw new Error(`${where}: ${e.message}`);
          });
          if (leavesPage(event, before)) {
            const to = event.type === 'login.start' ? /\/(login|private)/ : /\/$/;
            await page.waitForURL(to);
            continue;
          }
          await expectPageShows(page, state, t).catch((e: Error) => {
            throw new Error(`${where}, expecting ${JSON.stringify(state.value)}: ${e.message}`);
          });
        }
        const sent = journey.steps.some((s) => s.state.hasTag('busy'));
        if (journey.state.hasTag('busy')) {
          // The journey ends while sending: the real server's answer still comes.
          await page.getByRole('dialog', { name: t(`forms.success.${channel}.title`) }).waitFor();
        }
        expect(await countCases(), sent ? 'the sent report is stored' : 'nothing was sent').toBe(casesBefore + (sent ? 1 : 0));
        expect(o.foreignRequests([new URL(portal.url(host)).origin])).toEqual([]);
      });
    }
  });
}
