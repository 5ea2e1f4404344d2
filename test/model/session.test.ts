/**
 * Walks every transition of the session chart (model paths), replays each path on
 * the real chart with real invokes and a simulated clock, and checks the
 * behaviour the spec asks for along the way.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock, type AnyMachineSnapshot } from 'xstate';
import { MIN_VALIDITY_SECONDS, REFRESH_INTERVAL_MS, sessionMachine, type CheckResult, type LoadCaseResult, type LoadCaseInput, type UnlockCaseInput, type VerifyResult } from '../../machines/session.ts';
import model, { sessionWithCaseInHand } from './session.model.ts';
import { replayPath } from './session.kit.ts';
import { coverageOf, describePath, modelPaths } from './harness.ts';
import { expectInvariantOnShortestPaths } from './expect.ts';
import { CASE_NUMBER, sampleCase } from './session.fixtures.ts';

const replayOptions = {
  promiseActors: ['checkSession', 'signIn', 'verifyToken', 'loadCase', 'refreshToken', 'signInAgain', 'signOut', 'unlockCase'],
  recordActions: ['navigateToHome', 'navigateToError', 'clearSession'],
};

const paths = modelPaths(model);
const inHandPaths = modelPaths(sessionWithCaseInHand);

describe('session model', () => {
  it('walks every state and every transition, started with or without the case in hand', () => {
    const plain = coverageOf(model, paths);
    const inHand = coverageOf(sessionWithCaseInHand, inHandPaths);
    expect(plain.states.missed.filter((x) => inHand.states.missed.includes(x))).toEqual([]);
    expect(plain.transitions.missed.filter((x) => inHand.transitions.missed.includes(x))).toEqual([]);
    // Only a start with the case in hand takes the head's shortcut, and it takes it.
    expect(plain.transitions.missed.length).toBe(1);
    expect(plain.transitions.missed[0]).toMatch(/checking/);
    expect(inHand.transitions.missed).not.toContain(plain.transitions.missed[0]);
  });

  it('started with the case in hand, is signed in with it before any actor runs', () => {
    const s = createActor(sessionMachine, { input: { caseInHand: sampleCase } }).getSnapshot();
    expect(s.value).toEqual({ active: { caseData: 'ready', token: 'waiting' } });
    expect(s.hasTag('signedIn')).toBe(true);
    expect(s.context).toEqual({ caseNumber: sampleCase.caseNumber, caseData: sampleCase });
    expect(createActor(sessionMachine, { input: {} }).getSnapshot().value).toBe('checking');
  });

  it('holds its invariants on every createTestModel path', async () => {
    const walked = await expectInvariantOnShortestPaths(model, (s) => {
      // Private pages render only after verification; leaving states are final.
      expect(s.hasTag('signedIn')).toBe(s.matches('active') || s.matches('expired') || s.matches('resuming'));
      if (['loggedOut', 'unauthorized', 'signInFailed', 'verificationFailed', 'passwordChangeRequested'].some((v) => s.matches(v))) expect(s.status).toBe('done');
    });
    expect(walked).toBeGreaterThan(10);
  });

  it.each([
    ...paths.map((p) => [describePath(p), p, {}] as const),
    ...inHandPaths.map((p) => [`case in hand: ${describePath(p)}`, p, sessionWithCaseInHand.input] as const),
  ])('%s', async (_d, path, input) => {
    const h = await replayPath(sessionMachine, path, { ...replayOptions, input }, (h, step) => {
      const s = step.state as AnyMachineSnapshot;
      const last = h.actionLog.slice(-2);
      if (['loggedOut', 'unauthorized', 'signInFailed'].some((v) => s.matches(v))) {
        expect(last).toEqual(['clearSession', 'navigateToHome']);
        expect(h.actionLog).not.toContain('navigateToError');
      }
      // A password change: the tokens go, the page stays to say what happens next.
      if (s.matches('passwordChangeRequested')) {
        expect(h.actionLog.at(-1)).toBe('clearSession');
        expect(h.actionLog).not.toContain('navigateToHome');
      }
      if (s.matches('verificationFailed')) {
        expect(h.actionLog.at(-1)).toBe('navigateToError');
        expect(h.actionLog).not.toContain('navigateToHome');
      }
      // The typed case password reaches the unlocking actor's input and nothing else: never the context.
      if (s.matches('unlocking')) {
        expect(h.inputs.get('unlockCase')?.at(-1)).toEqual({ caseNumber: CASE_NUMBER, password: 'the case password' });
      }
      expect(JSON.stringify(h.actor.getSnapshot().context)).not.toContain('the case password');
      if (s.matches('askingPassword')) expect(h.actor.getSnapshot().context.caseData).toBeNull();
      if (s.matches({ active: { token: 'refreshing' } })) {
        expect(h.inputs.get('refreshToken')?.at(-1)).toEqual({ minValidity: MIN_VALIDITY_SECONDS });
      }
      // Private pages render only once the token was verified.
      expect(s.hasTag('signedIn')).toBe(s.matches('active') || s.matches('expired') || s.matches('resuming'));
    });
    const finalState = path.steps.at(-1)!.state;
    // An expired session keeps what the reporter saw: nothing is cleared and nobody navigates.
    if (finalState.matches('expired')) {
      expect(h.actionLog).toEqual([]);
      const hadCase =
        input !== undefined && 'caseInHand' in input ||
        path.steps.some((st) => st.event.type === 'xstate.done.actor.loadCase' && (st.event as unknown as { output: { status: number } }).output.status === 200);
      expect(finalState.context.caseData !== null).toBe(hadCase);
    }
  });
});

describe('entering the private area (spec §4 Session)', () => {
  const enter = (first: LoadCaseResult | Error, second: LoadCaseResult = { status: 500, data: null }) => {
    const answers = [first, second];
    const navigations: string[] = [];
    const actor = createActor(
      sessionMachine.provide({
        actors: {
          checkSession: fromPromise<CheckResult, void>(async () => ({ authenticated: true, caseNumber: CASE_NUMBER })),
          verifyToken: fromPromise<VerifyResult, void>(async () => ({ status: 200 })),
          loadCase: fromPromise<LoadCaseResult, LoadCaseInput>(async () => {
            const a = answers.shift()!;
            if (a instanceof Error) throw a;
            return a;
          }),
        },
        actions: { navigateToError: () => void navigations.push('/something-went-wrong'), navigateToHome: () => void navigations.push('/') },
      }),
      { input: {} },
    ).start();
    return { actor, navigations };
  };
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it.each([
    ['a 500', { status: 500, data: null }],
    ['a 404', { status: 404, data: null }],
    ['no answer', new Error('network')],
  ] as const)('goes to /something-went-wrong when the first case call fails with %s', async (_name, first) => {
    const { actor, navigations } = enter(first as LoadCaseResult | Error);
    for (let i = 0; i < 5; i++) await settle();
    expect(actor.getSnapshot().value).toBe('verificationFailed');
    expect(navigations).toEqual(['/something-went-wrong']);
  });

  it('keeps the case read and stays when a later reload fails', async () => {
    const { actor, navigations } = enter({ status: 200, data: sampleCase });
    for (let i = 0; i < 5; i++) await settle();
    actor.send({ type: 'case.reload' });
    for (let i = 0; i < 5; i++) await settle();
    expect(actor.getSnapshot().matches({ active: { caseData: 'ready' } })).toBe(true);
    expect(actor.getSnapshot().context.caseData).toEqual(sampleCase);
    expect(navigations).toEqual([]);
  });

  it('a sealed case without its reporter key in this page: keyMissing, nothing private shown, the case forgotten; log out leaves', async () => {
    const { actor, navigations } = enter({ status: 200, data: sampleCase }, { status: 200, data: null, keyMissing: true });
    for (let i = 0; i < 5; i++) await settle();
    actor.send({ type: 'case.reload' });
    for (let i = 0; i < 5; i++) await settle();
    expect(actor.getSnapshot().value).toBe('keyMissing');
    expect(actor.getSnapshot().hasTag('signedIn')).toBe(false);
    expect(actor.getSnapshot().context.caseData).toBeNull();
    expect(navigations).toEqual([]);
    actor.send({ type: 'session.logout' });
    expect(actor.getSnapshot().value).toBe('loggingOut');
  });
});

describe('an external issuer signed in (issue 37): the case password, once', () => {
  it('asks for it, derives with what was typed, opens the case; a password whose key does not open it is asked again; nothing private meanwhile', async () => {
    const unlocks: unknown[] = [];
    const answers: LoadCaseResult[] = [{ status: 200, data: null, keyMissing: true }, { status: 200, data: sampleCase }];
    const actor = createActor(
      sessionMachine.provide({
        actors: {
          checkSession: fromPromise<CheckResult, void>(async () => ({ authenticated: true, caseNumber: CASE_NUMBER })),
          verifyToken: fromPromise<VerifyResult, void>(async () => ({ status: 200 })),
          loadCase: fromPromise<LoadCaseResult, LoadCaseInput>(async () => ({ status: 200, data: null, keyMissing: true, passwordWanted: true })),
          unlockCase: fromPromise<LoadCaseResult, UnlockCaseInput>(async ({ input }) => {
            unlocks.push(input);
            return answers.shift()!;
          }),
        },
      }),
      { input: {} },
    ).start();
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    };
    await settle();
    expect(actor.getSnapshot().value).toEqual({ askingPassword: 'idle' });
    expect(actor.getSnapshot().hasTag('signedIn')).toBe(false);
    expect(actor.getSnapshot().can({ type: 'password.submit', password: 'x' })).toBe(true);
    actor.send({ type: 'password.submit', password: '' });
    expect(actor.getSnapshot().value).toEqual({ askingPassword: 'empty' });
    actor.send({ type: 'password.submit', password: 'wrong one' });
    expect(actor.getSnapshot().value).toBe('unlocking');
    expect(actor.getSnapshot().can({ type: 'password.submit', password: 'x' })).toBe(false);
    await settle();
    expect(actor.getSnapshot().value).toEqual({ askingPassword: 'refused' });
    actor.send({ type: 'password.submit', password: 'right one' });
    await settle();
    expect(actor.getSnapshot().matches({ active: { caseData: 'ready' } })).toBe(true);
    expect(actor.getSnapshot().context.caseData).toEqual(sampleCase);
    expect(unlocks).toEqual([{ caseNumber: CASE_NUMBER, password: 'wrong one' }, { caseNumber: CASE_NUMBER, password: 'right one' }]);
    expect(JSON.stringify(actor.getSnapshot().context)).not.toMatch(/wrong one|right one/);
  });
});

describe('session timers (simulated clock)', () => {
  function start() {
    const clock = new SimulatedClock();
    const calls = { refresh: 0, load: 0, minValidity: [] as number[] };
    let refreshFails = false;
    const actor = createActor(
      sessionMachine.provide({
        actors: {
          checkSession: fromPromise<CheckResult, void>(async () => ({ authenticated: true, caseNumber: CASE_NUMBER })),
          verifyToken: fromPromise<VerifyResult, void>(async () => ({ status: 200 })),
          loadCase: fromPromise<LoadCaseResult, LoadCaseInput>(async () => {
            calls.load++;
            return { status: 200, data: sampleCase };
          }),
          refreshToken: fromPromise(async ({ input }: { input: { minValidity: number } }) => {
            calls.refresh++;
            calls.minValidity.push(input.minValidity);
            if (refreshFails) throw new Error('invalid_grant');
          }),
        },
      }),
      { clock, input: {} },
    );
    actor.start();
    return { actor, clock, calls, failRefresh: () => (refreshFails = true) };
  }
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it('refreshes every 60 s asking for 70 s validity, and reloads the case after each refresh', async () => {
    const { actor, clock, calls } = start();
    await settle();
    expect(actor.getSnapshot().matches({ active: { caseData: 'ready', token: 'waiting' } })).toBe(true);
    expect(calls.load).toBe(1); // loaded on entry
    clock.increment(REFRESH_INTERVAL_MS - 1);
    await settle();
    expect(calls.refresh).toBe(0);
    clock.increment(1);
    await settle();
    expect(calls.refresh).toBe(1);
    expect(calls.load).toBe(2);
    for (let i = 0; i < 3; i++) {
      clock.increment(REFRESH_INTERVAL_MS);
      await settle();
    }
    expect(calls.refresh).toBe(4);
    expect(calls.minValidity).toEqual([70, 70, 70, 70]);
    expect(actor.getSnapshot().matches({ active: { token: 'waiting' } })).toBe(true);
    actor.stop();
  });

  it('a failed refresh goes to expired, keeps the case and stops the timer', async () => {
    const { actor, clock, calls, failRefresh } = start();
    await settle();
    failRefresh();
    clock.increment(REFRESH_INTERVAL_MS);
    await settle();
    expect(actor.getSnapshot().value).toBe('expired');
    expect(actor.getSnapshot().context.caseData).toEqual(sampleCase);
    expect(actor.getSnapshot().hasTag('signedIn')).toBe(true);
    // a 401 seen by a page while expired does not throw the reporter out
    actor.send({ type: 'session.unauthorized' });
    expect(actor.getSnapshot().value).toBe('expired');
    clock.increment(REFRESH_INTERVAL_MS * 5);
    await settle();
    expect(calls.refresh).toBe(1);
    actor.stop();
  });
});
