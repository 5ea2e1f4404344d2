/**
 * The handler side's machines: every model path replayed on a running actor (with
 * simulated actors and clock), with each machine's invariants checked at every step.
 */
import { describe, expect, it } from 'vitest';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths, type MachineModel } from './harness.ts';
import { expectFullCoverage } from './expect.ts';
import session from './handlerSession.model.ts';
import enrolment from './handlerEnrolment.model.ts';
import inbox, { inboxCases } from './handlerInbox.model.ts';
import handlerCase from './handlerCase.model.ts';
import composer from './handlerComposer.model.ts';
import record from './handlerRecordEditor.model.ts';
import keyLog from './handlerKeyLog.model.ts';
import sealedCase, { sealedCaseFilter } from './handlerSealedCase.model.ts';
import assignment from './handlerAssignment.model.ts';
import statistics from './handlerStatistics.model.ts';
import draft from './handlerDraft.model.ts';
import { inboxRows, daysLeft, inboxFiltersOf, inboxSearchOf, isFeedbackDueSoon, isWordSearch, searchableText, DEFAULT_FILTERS, type InboxContext } from '../../machines/handler/inbox.ts';
import { passwordStrength } from '../../machines/handler/enrolment.ts';
import { auditEntries, closingReason } from '../../machines/handler/case.ts';
import { isSignInCode } from '../../machines/handler/session.ts';
import { IDLE_WARNING_MS, IDLE_FINAL_MS } from '../../machines/handler/session.ts';

type Check = (s: AnyMachineSnapshot, event: { type: string }, before: AnyMachineSnapshot, actions: string[]) => void;

const suites: [MachineModel, string[], string[], Check][] = [
  [
    session,
    ['checkSession', 'signIn', 'refreshSession', 'signOut', 'unlockKeys'],
    [],
    (s, e, before) => {
      if (s.matches('signedIn')) expect(s.context.handler).not.toBeNull();
      if (s.matches('signedOut')) expect(s.context.handler).toBeNull();
      // Keys only while signed in, and only once opened.
      if (!s.matches('signedIn')) expect(s.context.keys).toBeNull();
      if (s.matches({ signedIn: { keys: 'keysUnlocked' } })) expect(s.context.keys).not.toBeNull();
      if (s.matches({ signedIn: { keys: 'keysLocked' } }) || s.matches({ signedIn: { keys: 'unlocking' } })) expect(s.context.keys).toBeNull();
      if (s.context.recoveryCode) expect(s.matches({ signedIn: { keys: { keysUnlocked: 'showingRecoveryCode' } } })).toBe(true);
      if ((e.type === 'signin.submit' && s.matches('signingIn')) || e.type === 'keys.unlock') expect(JSON.stringify(s.context)).not.toContain('correct horse');
      if (e.type.startsWith('xstate.after.idleFinal')) expect(s.matches('timingOut')).toBe(before.matches({ signedIn: { idle: 'warning' } }));
      // The place is kept by the idle or server-ended sign-out, for the same account only; a sign-out by choice forgets it.
      if ((s.matches({ signedOut: 'expired' }) || s.matches('timingOut')) && before.matches('signedIn'))
        expect(s.context.resume).toEqual(before.context.place && before.context.handler ? { handlerId: before.context.handler.id, path: before.context.place } : null);
      if (s.matches('signingOut')) expect(s.context.resume).toBeNull();
      if (e.type === 'xstate.done.actor.signIn' && s.context.resume && s.matches('signedIn')) expect(s.context.resume.handlerId).toBe(s.context.handler.id);
      if (!s.matches('signedIn')) expect(s.context.place).toBe('');
    },
  ],
  [
    enrolment,
    ['openEnrolment', 'finishEnrolment'],
    [],
    (s) => {
      if (s.matches('finishing')) {
        expect([...s.context.password].length).toBeGreaterThanOrEqual(12);
        expect(s.context.password).toBe(s.context.repeat);
        expect(s.context.totpCode).toMatch(/^\d{6}$/);
      }
      if (!s.matches('done')) expect(s.context.recoveryCodes).toEqual([]);
      if (!s.matches('done')) expect(s.context.keyRecoveryCode).toBe('');
      else expect(s.context.password).toBe('');
    },
  ],
  [inbox, ['loadInbox', 'openSummaries'], ['reportUnauthorized'], (s, e, before, actions) => {
    if (e.type === 'xstate.done.actor.loadInbox' && (e as unknown as { output: { status: number } }).output.status === 401) expect(actions.at(-1)).toBe('reportUnauthorized');
    // More pages only after a page that named one; their rows come after those shown.
    const more = { shown: 'loadingMore' };
    if (s.matches(more) && !before.matches(more)) expect(s.context.nextCursor).not.toBeNull();
    // Without a "more" asked for, only a word search walks on to the next page.
    if (s.matches(more) && !before.matches(more) && e.type !== 'more.load') expect(isWordSearch(s.context.search)).toBe(true);
    const settled = s.matches('shown') && !s.matches(more) && !s.matches({ shown: 'refreshing' }) && !s.matches({ shown: 'searching' });
    if (before.matches(more) && settled && !s.context.moreFailed) expect(s.context.cases.slice(0, before.context.cases.length)).toEqual(before.context.cases);
    if (before.matches(more) && settled && s.context.moreFailed) expect(s.context.cases).toEqual(before.context.cases);
    // A filter change always asks the server again (typing: after the pause), unless the server would be asked the same.
    if (e.type.startsWith('filter.')) expect(s.matches('loading') || s.matches({ shown: 'refreshing' })).toBe(true);
    const asked = (q: string) => (isWordSearch(q) ? '' : q.replace(/\D/g, ''));
    if (e.type === 'search.change' && before.matches('shown') && isWordSearch(s.context.search) && asked(before.context.search) === asked(s.context.search)) expect(s.context.cases).toBe(before.context.cases);
    else if (e.type === 'search.change') expect(s.matches('loading') || s.matches({ shown: 'searching' })).toBe(true);
    if (e.type.startsWith('xstate.after.searchPause')) expect(s.matches({ shown: 'refreshing' })).toBe(true);
    // Each case's summary is asked for once: a batch names only cases without one, and every case it named has one after.
    if (s.matches({ shown: 'opening' }) && !before.matches({ shown: 'opening' })) {
      expect(s.context.opening.length).toBeGreaterThan(0);
      for (const n of s.context.opening) expect(n in before.context.summaries).toBe(false);
    }
    if (e.type.startsWith('xstate.done.actor.openSummaries') || e.type.startsWith('xstate.error.actor.openSummaries')) for (const n of before.context.opening) expect(n in s.context.summaries).toBe(true);
    // Rows only once a page came.
    expect(s.hasTag('rows')).toBe(s.matches('shown'));
  }],
  [handlerCase, ['loadCase', 'changeStatus'], ['reportUnauthorized'], (s, e, before) => {
    if (s.matches('confirmingStatus')) expect(s.context.nextStatus).not.toBe(before.context.view?.status ?? null);
    if (s.matches('changingStatus') && !before.matches('changingStatus')) expect(before.matches('confirmingStatus')).toBe(true);
    if (e.type === 'xstate.done.actor.loadCase' && (e as unknown as { output: { status: number } }).output.status === 404) expect(s.matches('notFound')).toBe(true);
  }],
  [composer, [], ['reloadCase', 'reportUnauthorized'], (s, e, before, actions) => {
    if (s.matches('sending')) expect(before.context.text.trim() !== '' || before.context.files.length > 0).toBe(true);
    if (e.type === 'upload.progress' && s.matches('sending')) expect([s.context.loaded, s.context.total]).toEqual([500, 1000]);
    if (s.matches({ editing: 'sent' }) && e.type === 'upload.done') {
      expect(actions.at(-1)).toBe('reloadCase');
      expect(s.context.text).toBe('');
    }
    if (s.matches({ editing: 'failed' })) expect(s.context.text).toBe(before.context.text);
  }],
  [record, ['saveRecord', 'loadLatest'], ['reloadCase', 'reportUnauthorized', 'dropDraft'], (s, e, before, actions) => {
    // The draft kept on the device goes only with a save that landed or a cancel; a refused save keeps it.
    if (e.type === 'xstate.done.actor.saveRecord' && s.matches('viewing')) expect(actions.at(-2)).toBe('dropDraft');
    if (s.matches('conflict') && !before.matches('conflict')) expect(actions.at(-1)).not.toBe('dropDraft');
    if (e.type === 'draft.restore' && s.matches('editing')) expect([s.context.base, s.context.mine]).toEqual([(e as { base?: number }).base ?? before.context.version, null]);
    // Offered on every oral case, approved or not; an online report stays locked (a transcript of its voice message does not).
    if (s.matches('editing') || s.matches('saving') || s.matches('viewing') || s.matches('conflict')) expect(s.context.transcript === true || s.context.submissionType !== 'ONLINE_FORM').toBe(true);
    if (s.matches('saving')) expect(s.context.draft.trim()).not.toBe('');
    // A save names the version it was written on: the one seen on opening, or theirs once chosen.
    if (s.matches('saving') && before.matches('editing')) expect(s.context.base).toBe(before.context.base);
    if (s.matches('saving') && before.matches('conflict')) expect(s.context.base).toBe(before.context.theirs.version);
    if (e.type === 'edit.open') expect(s.context.base).toBe(before.context.version);
    // Nothing typed is lost: the draft survives the conflict, and editing from theirs keeps it in `mine`.
    if (s.matches('conflict')) expect(s.context.draft).toBe(before.context.draft);
    if (s.matches({ conflict: 'choosing' })) expect(s.context.theirs).not.toBeNull();
    if (e.type === 'conflict.editTheirs' && s.matches('editing')) {
      expect(s.context.mine).toBe(before.context.draft);
      expect(s.context.draft).toBe(before.context.theirs.text);
    }
    if (e.type === 'conflict.editTheirs' && !s.matches('editing')) expect(before.context.theirs?.text ?? null).toBeNull();
  }],
  [draft, ['openDraft', 'keepDraft', 'dropDraft'], ['restoreDraft'], (s, e, before, actions) => {
    // Nothing opened or sealed without the keys; a seal always has text to seal.
    if (s.matches('opening') || s.matches('keeping') || s.matches('pausing')) expect(s.context.keys).not.toBeNull();
    if (s.matches('keeping')) expect(s.context.value).not.toBeNull();
    // A stored draft reaches the editor only when nothing was typed in this sitting.
    if (e.type === 'xstate.done.actor.openDraft' && actions.at(-1) === 'restoreDraft') expect(before.context.value).toBeNull();
    if (e.type === 'xstate.done.actor.openDraft' && before.context.value !== null) expect(s.matches('pausing')).toBe(true);
    if (s.matches({ ready: 'restored' })) expect(s.context.value).toBeNull();
    // A drop forgets what was typed before it.
    if (e.type === 'draft.drop' && s.matches('dropping')) expect(s.context.value).toBeNull();
    // Typed while sealing: sealed again right after.
    if (e.type === 'xstate.done.actor.keepDraft' && before.context.dirty) expect(s.matches('pausing')).toBe(true);
  }],
  [keyLog, ['loadKeyLog', 'makeAnchor', 'certifyColleague'], [], (s, e, before) => {
    if (s.matches('ready') || s.matches('noAnchor')) expect(s.context.view).not.toBeNull();
    if (s.matches('refused')) expect(s.context.view).toBeNull();
    if (s.matches('certifying')) {
      expect(before.matches('confirmingCertify')).toBe(true);
      expect(s.context.view?.mine.certified).toBe(true);
      expect(s.context.view?.pending.map((p: { id: string }) => p.id)).toContain(s.context.chosen?.id);
    }
    if (!s.matches('showingRecoveryKey')) expect(s.context.recoveryKey).toBe('');
    if (e.type === 'certify' && s.matches('confirmingCertify')) expect(before.context.view?.mine.certified).toBe(true);
  }],
  [assignment, ['loadAssignment', 'changeAssignment'], ['reloadCase', 'reportUnauthorized'], (s, e, before, actions) => {
    if (s.matches('changing') && !before.matches('changing')) {
      expect(before.matches('ready')).toBe(true);
      const a = s.context.act;
      const view = before.context.assignment;
      if (a.kind === 'assign') expect(view.colleagues.map((c: { id: string }) => c.id)).toContain(a.handlerId);
      if (a.kind === 'assign') expect(view.assignee?.id).not.toBe(a.handlerId);
      if (a.kind === 'share') expect([view.assignee?.id, ...view.shares.map((x: { id: string }) => x.id)]).not.toContain(a.handlerId);
      if (a.kind === 'unassign') expect(view.assignee).not.toBeNull();
      if (a.kind === 'unshare') expect(view.shares.map((x: { id: string }) => x.id)).toContain(a.handlerId);
    }
    // The trail shows an act at once: the case reloads after each one that landed.
    if (e.type === 'xstate.done.actor.changeAssignment' && [200, 201].includes((e as unknown as { output: { status: number } }).output.status)) expect(actions.at(-1)).toBe('reloadCase');
    if (before.matches('changing') && s.context.refused) expect(s.context.assignment).toEqual(before.context.assignment);
    if (s.matches('ready')) expect(s.context.assignment).not.toBeNull();
  }],
  [statistics, ['loadStatistics', 'publishKey', 'giveKey', 'rotateKey'], [], (s, e, before) => {
    const withCounts = ['counted', 'confirmingGive', 'giving', 'confirmingRotate', 'rotating'].some((x) => s.matches(x));
    // Counts only from a load that counted; a refusal or a page without the key shows none.
    if (withCounts) expect(s.context.counts).not.toBeNull();
    if (!withCounts && !s.matches('loading')) expect(s.context.counts).toBeNull();
    if (s.matches('publishing')) expect(before.matches('confirmingPublish')).toBe(true);
    if (s.matches('confirmingPublish')) expect(s.context.canPublish).toBe(true);
    if (s.matches('refused')) expect(s.context.reason).not.toBe('');
    // A gift only after its confirmation, to a colleague the load offered; the recipient only then.
    if (s.matches('giving')) expect(before.matches('confirmingGive') || before.matches('giving')).toBe(true);
    if (s.matches('confirmingGive') || s.matches('giving')) expect(s.context.colleagues).toContainEqual(s.context.recipient);
    else expect(s.context.recipient).toBeNull();
    if (e.type === 'xstate.done.actor.giveKey' && s.matches('loading')) expect(s.context.given).toBe(before.context.recipient.name);
    // A rotation only after its confirmation, by a handler the load said may.
    if (s.matches('rotating')) expect(before.matches('confirmingRotate') || before.matches('rotating')).toBe(true);
    if (s.matches('confirmingRotate')) expect(s.context.canRotate).toBe(true);
    // Who can give it is named only on the page without the key.
    if (!s.matches('notHolder') && !s.matches('loading')) expect(s.context.holders).toEqual([]);
    // No statistics private key in the context, ever: only numbers and names.
    expect(JSON.stringify(s.context)).not.toMatch(/privateKey|pkcs8/);
  }],
  ...[sealedCase].map((m) => [m, ['loadSealed', 'openCase', 'sendSealed', 'loadCandidates', 'grantKey', 'revokeKey', 'changeStatus', 'saveFile'], ['reportUnauthorized', 'noteDraft', 'flushDraft', 'dropDraft'], (s: AnyMachineSnapshot, e: { type: string }, before: AnyMachineSnapshot, actions: string[]) => {
    // The composer's draft (issue 38): Send seals it at once, a sent message drops it, a kept one shows as restored once the case is open.
    if (s.matches({ opened: { composer: 'sending' } }) && !before.matches({ opened: { composer: 'sending' } })) expect(actions).toContain('flushDraft');
    if (e.type === 'xstate.done.actor.sendSealed' && s.matches({ opened: { composer: { editing: 'sent' } } })) expect(actions).toContain('dropDraft');
    if (e.type === 'text.change' && s.matches('opened')) expect(actions).toContain('noteDraft');
    if (e.type === 'draft.restore') expect(s.context.restored).toBe(true);
    if (s.matches({ opened: { composer: { editing: 'restored' } } })) expect(s.context.text).not.toBe('');
    if (s.matches('opened') && !before.matches('opened') && before.context.restored) expect(s.matches({ opened: { composer: { editing: 'restored' } } })).toBe(true);
    // A status changes only after its confirmation, to another settable status; the answer's view replaces the old one.
    if (s.matches({ opened: { status: 'changingStatus' } }) && !before.matches({ opened: { status: 'changingStatus' } })) {
      expect(before.matches({ opened: { status: 'confirmingStatus' } })).toBe(true);
      expect(['RECEIVED', 'BEING_INVESTIGATED', 'BEING_CLOSED', 'CLOSED']).toContain(s.context.nextStatus);
      expect(s.context.nextStatus).not.toBe(s.context.view.status);
    }
    if (e.type === 'xstate.done.actor.changeStatus' && s.matches({ opened: { status: { idle: 'changed' } } })) expect(s.context.opened.audit.at(-1).action).toBe('STATUS_CHANGED');
    // A file is saved only when its name opened, this browser holds its epoch's key, and can hold or stream it; its outcome stays beside the others.
    if (s.matches({ opened: { files: 'saving' } })) {
      const f = s.context.opened.files.find((x: { id: string }) => x.id === s.context.saving);
      expect(f?.name).not.toBeNull();
      expect(s.context.epochKeys.byEpoch.has(f.epoch ?? 1)).toBe(true);
      expect(s.context.canStream || (f.size ?? f.sealedSize) <= 100_000_000).toBe(true);
      expect(s.context.fileOutcomes[s.context.saving]).toEqual({ outcome: 'saving' });
    }
    if (e.type.endsWith('actor.saveFile')) expect(Object.values(s.context.fileOutcomes).some((o) => (o as { outcome: string }).outcome === 'saving')).toBe(false);
    // Every epoch's key reached is kept; what is written here is sealed under the newest and names its epoch.
    if (s.matches('opened')) {
      expect(s.context.epochKeys).not.toBeNull();
      expect(s.context.dataKey).toBe(s.context.epochKeys.dataKey);
      expect(s.context.epoch).toBe(s.context.epochKeys.epoch);
    } else expect(s.context.epochKeys).toBeNull();
    // No data key without an opened wrap; none kept once the case is left.
    if (!s.matches('opened')) expect(s.context.dataKey).toBeNull();
    else expect(s.context.dataKey).not.toBeNull();
    if (s.matches('loading') || s.matches('opening')) expect(s.context.keys).not.toBeNull();
    if (s.matches('noKey')) expect(s.context.view?.wrap).toBeNull();
    if (s.matches({ opened: { composer: 'sending' } }) && !before.matches({ opened: { composer: 'sending' } })) expect(before.context.text.trim() !== '' || before.context.attachments.length > 0).toBe(true);
    expect(s.context.attachments.length).toBeLessThanOrEqual(5);
    if (e.type.startsWith('xstate.') && e.type.endsWith('sendSealed') && s.matches({ opened: { composer: { editing: 'failed' } } })) expect(s.context.attachments).toBe(before.context.attachments);
    if (e.type === 'xstate.done.actor.sendSealed' && s.matches({ opened: { composer: { editing: 'sent' } } })) expect(s.context.attachments).toEqual([]);
    // A failed send keeps the text; a sent one joins the thread and clears it.
    if (e.type.startsWith('xstate.') && e.type.endsWith('sendSealed') && s.matches({ opened: { composer: { editing: 'failed' } } })) expect(s.context.text).toBe(before.context.text);
    if (e.type === 'xstate.done.actor.sendSealed' && s.matches({ opened: { composer: { editing: 'sent' } } })) {
      expect(s.context.text).toBe('');
      expect(s.context.opened.messages.length).toBe(before.context.opened.messages.length + 1);
    }
    if (s.matches({ opened: { grants: 'granting' } }) && !before.matches({ opened: { grants: 'granting' } })) expect(before.matches({ opened: { grants: 'confirmingGrant' } })).toBe(true);
    if (s.matches({ opened: { grants: 'confirmingGrant' } })) expect(s.context.candidates.map((c: { handlerId: string }) => c.handlerId)).toContain(s.context.chosen?.handlerId);
    // A revocation only after its confirmation, of a holder, while the key is held; once taken the case is read again.
    if (s.matches({ opened: { grants: 'revoking' } }) && !before.matches({ opened: { grants: 'revoking' } })) expect(before.matches({ opened: { grants: 'confirmingRevoke' } })).toBe(true);
    if (s.matches({ opened: { grants: 'confirmingRevoke' } })) expect(s.context.holders.map((c: { handlerId: string }) => c.handlerId)).toContain(s.context.revoking?.handlerId);
    if (e.type === 'xstate.done.actor.revokeKey' && before.matches({ opened: { grants: 'revoking' } }) && (e as { output?: { status: number } }).output?.status === 201) {
      expect(s.matches('loading')).toBe(true);
      expect(s.context.revoked).toBe(before.context.revoking.name);
    }
    if (s.matches('revoked')) expect(s.context.dataKey).toBeNull();
  }] as [MachineModel, string[], string[], Check]),
];

for (const [model, promiseActors, recordActions, check] of suites) {
  describe(`${model.name} model`, () => {
    const paths = modelPaths(model, model === sealedCase ? { filter: sealedCaseFilter } : {});
    it('walks every state and every transition', () => expectFullCoverage(model, paths));
    it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
      const callbacks = model.name === 'handlerComposer' ? { callbackActors: ['sendMessage'], callbackEvents: ['upload.progress', 'upload.done'] } : {};
      await replayPath(model.machine, path, { promiseActors, recordActions, input: model.input, ...callbacks }, (h, step, before) => check(step.state, step.event, before, h.actionLog));
    });
  });
}

describe('handler helpers', () => {
  it('inbox rows: nearest deadline first, cases without a clock last; filters and search by digits', () => {
    const ctx: InboxContext = { ...DEFAULT_FILTERS, cases: inboxCases as never, nextCursor: null, moreFailed: false, summaries: {}, opening: [] };
    expect(inboxRows(ctx).map((c) => c.caseNumber)).toEqual(['1111222233334444', '5555666677778888']);
    expect(inboxRows({ ...ctx, channel: 'PHONE' }).map((c) => c.caseNumber)).toEqual(['5555666677778888']);
    expect(inboxRows({ ...ctx, status: 'RECEIVED' }).map((c) => c.caseNumber)).toEqual(['1111222233334444']);
    expect(inboxRows({ ...ctx, search: '5555 6666' }).map((c) => c.caseNumber)).toEqual(['5555666677778888']);
    expect(daysLeft('2026-11-27T10:00:00.000Z', Date.parse('2026-11-20T10:00:01.000Z'))).toBe(7);
    expect(daysLeft('2026-11-27T10:00:00.000Z', Date.parse('2026-11-28T10:00:01.000Z'))).toBe(-1);
  });

  it('inbox rows sort by any column both ways, keep empty values last, and filter by assignment and open cases', () => {
    const rows = [
      { ...inboxCases[0], caseNumber: '1', assignee: { id: 'a', name: 'Bo' }, officerName: 'Zoe', unreadMessages: 3, status: 'CLOSED' },
      { ...inboxCases[1], caseNumber: '2', assignee: null, officerName: 'Anna', unreadMessages: 0, sharedWithMe: true },
      { ...inboxCases[0], caseNumber: '3', assignee: { id: 'me', name: 'Ada' }, officerName: null, unreadMessages: 1 },
    ];
    const ctx: InboxContext = { ...DEFAULT_FILTERS, openOnly: false, cases: rows as never, nextCursor: null, moreFailed: false, summaries: {}, opening: [] };
    const order = (c: Partial<InboxContext>, me?: string) => inboxRows({ ...ctx, ...c }, me).map((r) => r.caseNumber);
    expect(order({ sort: { column: 'assignee', descending: false } })).toEqual(['3', '1', '2']);
    expect(order({ sort: { column: 'assignee', descending: true } })).toEqual(['1', '3', '2']);
    expect(order({ sort: { column: 'officer', descending: false } })).toEqual(['2', '1', '3']);
    expect(order({ sort: { column: 'unread', descending: true } })).toEqual(['1', '3', '2']);
    expect(order({ openOnly: true, sort: { column: 'case', descending: false } })).toEqual(['2', '3']);
    expect(order({ assigned: 'UNASSIGNED' })).toEqual(['2']);
    expect(order({ assigned: 'SHARED' })).toEqual(['2']);
    expect(order({ assigned: 'ME' }, 'me')).toEqual(['3']);
  });

  it('a word search filters the rows by what was opened here, accents and case aside, and sorts by category and language', () => {
    const ctx: InboxContext = {
      ...DEFAULT_FILTERS,
      cases: inboxCases as never,
      nextCursor: null,
      moreFailed: false,
      opening: [],
      summaries: {
        '1111222233334444': { opened: true, category: 'THEFT', language: 'de', text: searchableText(['Diesel und Fuel fehlen', 'Lager Süd']) },
        '5555666677778888': { opened: false },
      },
    };
    const order = (c: Partial<InboxContext>) => inboxRows({ ...ctx, ...c }).map((r) => r.caseNumber);
    expect(order({ search: 'FUEL' })).toEqual(['1111222233334444']);
    expect(order({ search: 'lager sud' })).toEqual(['1111222233334444']);
    expect(order({ search: 'fuel 1111' })).toEqual(['1111222233334444']);
    expect(order({ search: 'fuel 5555' })).toEqual([]);
    // A case not opened is no match for words, and still one for digits.
    expect(order({ search: 'missing' })).toEqual([]);
    expect(order({ search: '5555' })).toEqual(['5555666677778888']);
    expect(order({ sort: { column: 'category', descending: true } })).toEqual(['1111222233334444', '5555666677778888']);
    expect(order({ sort: { column: 'language', descending: false } })).toEqual(['1111222233334444', '5555666677778888']);
    // Words never go to the address.
    expect(inboxSearchOf({ ...DEFAULT_FILTERS, search: 'fuel 12' })).toBe('');
    expect(isWordSearch('1234 5678')).toBe(false);
    expect(isWordSearch('Öl')).toBe(true);
  });

  it('the inbox address keeps filters and sort, names only what differs from the default, and ignores the unknown', () => {
    expect(inboxSearchOf(DEFAULT_FILTERS)).toBe('');
    expect(inboxFiltersOf('')).toEqual(DEFAULT_FILTERS);
    const f = { status: 'RECEIVED', channel: 'PHONE', search: '12 34', assigned: 'UNASSIGNED', openOnly: false, sort: { column: 'officer', descending: true } } as const;
    const search = inboxSearchOf(f);
    expect(search).toBe('status=RECEIVED&channel=PHONE&q=1234&assigned=UNASSIGNED&open=all&sort=officer&dir=desc');
    expect(inboxFiltersOf(search)).toEqual({ ...f, search: '1234' });
    expect(inboxFiltersOf('?status=NOPE&sort=evil&assigned=x&q=fuel')).toEqual(DEFAULT_FILTERS);
  });

  it('the feedback marker shows from 14 days before the 3-month deadline, never for the acknowledgement', () => {
    const now = Date.parse('2026-11-01T00:00:00Z');
    const at = (days: number, kind: 'ACKNOWLEDGEMENT' | 'FEEDBACK' = 'FEEDBACK') => ({ deadline: { kind, due: new Date(now + days * 86_400_000).toISOString() } });
    expect(isFeedbackDueSoon(at(15), now)).toBe(false);
    expect(isFeedbackDueSoon(at(14), now)).toBe(true);
    expect(isFeedbackDueSoon(at(-3), now)).toBe(true);
    expect(isFeedbackDueSoon(at(3, 'ACKNOWLEDGEMENT'), now)).toBe(false);
    expect(isFeedbackDueSoon({ deadline: null }, now)).toBe(false);
  });

  it('closing asks why when the confirmation of receipt or the feedback is missing or overdue', () => {
    const now = Date.parse('2026-11-10T00:00:00Z');
    expect(closingReason(null, now)).toBeNull();
    expect(closingReason({ kind: 'ACKNOWLEDGEMENT', due: '2026-11-12T00:00:00Z' }, now)).toBe('ACK_MISSING');
    expect(closingReason({ kind: 'ACKNOWLEDGEMENT', due: '2026-11-09T00:00:00Z' }, now)).toBe('ACK_OVERDUE');
    expect(closingReason({ kind: 'FEEDBACK', due: '2027-01-12T00:00:00Z' }, now)).toBe('FEEDBACK_MISSING');
    expect(closingReason({ kind: 'FEEDBACK', due: '2026-11-01T00:00:00Z' }, now)).toBe('FEEDBACK_OVERDUE');
    const trail = [{ action: 'CASE_READ' }, { action: 'STATUS_CHANGED' }, { action: 'CASE_READ' }];
    expect(auditEntries(trail, 'ALL')).toEqual(trail);
    expect(auditEntries(trail, 'STATUS_CHANGED')).toEqual([{ action: 'STATUS_CHANGED' }]);
  });

  it('the sign-in code field reads a recovery code as the server does: capitals, spaces and dashes', () => {
    expect(isSignInCode('123456')).toBe(true);
    expect(isSignInCode(' 123 456 ')).toBe(true);
    expect(isSignInCode('ab12c-de34f-56789-0abcd')).toBe(true);
    expect(isSignInCode('AB12C DE34F 56789 0ABCD')).toBe(true);
    expect(isSignInCode('12345')).toBe(false);
    expect(isSignInCode('AB12C DE34F 56789 0ABCZ')).toBe(false);
  });

  it('password strength needs 12 characters before it counts as usable', () => {
    expect(passwordStrength('')).toBe(0);
    expect(passwordStrength('Sh0rt!')).toBe(1);
    expect(passwordStrength('twelve chars')).toBe(2);
    expect(passwordStrength('Twelve chars 16!')).toBe(4);
  });

  it('the idle warning comes one minute before the 15-minute end', () => {
    expect(IDLE_WARNING_MS + IDLE_FINAL_MS).toBe(15 * 60_000);
    const a = createActor(session.machine).start();
    expect(a.getSnapshot().value).toBe('checking');
    a.stop();
  });
});

describe('the record editor as a transcript editor (issue 40)', () => {
  it('edits the transcript of a voice message on an online report, and a case reading that changes the channel keeps it editable', async () => {
    const { recordEditorMachine } = await import('../../machines/handler/recordEditor.ts');
    const plain = createActor(recordEditorMachine, { input: { submissionType: 'ONLINE_FORM', approvedAt: null, text: '', version: 0 } }).start();
    expect(plain.getSnapshot().value).toBe('locked');
    const t = createActor(recordEditorMachine, { input: { submissionType: 'ONLINE_FORM', approvedAt: null, text: '', version: 0, transcript: true } }).start();
    expect(t.getSnapshot().matches('viewing')).toBe(true);
    t.send({ type: 'edit.open' });
    t.send({ type: 'draft.change', value: 'What the voice message says.' });
    expect(t.getSnapshot().can({ type: 'edit.save' })).toBe(true);
    t.send({ type: 'case.change', submissionType: 'PHONE', approvedAt: null, text: '', version: 0 });
    expect(t.getSnapshot().matches('editing')).toBe(true);
  });
});

