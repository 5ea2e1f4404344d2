/**
 * The report entry's browser effects (src/handler/caseEntry.ts) with real core/crypto and
 * the workspace's own key-log check (src/handler/keys.ts), the server's answers stood in
 * for: at a company whose log verifies, only envelopes and wraps leave the page, the
 * reporter's wrap opens with the keys the reporter's sign-in derives from the slip's
 * number and password, and every entitled key and the recovery key get the data key; a
 * company without keys, or an officer without a certified key, goes the plain way; a log
 * that lost the anchor this browser saw is refused and nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import {
  deriveReporterKeys, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, openCaseParts, openSealedBox, signKeyLogEntry, toBase64, unwrapDataKey,
  type HandlerKeys, type KeyLogEntry,
} from '../../core/crypto/index.ts';
import { caseEntryEffects } from '../../src/handler/caseEntry.ts';
import { handlerKeys } from '../../src/handler/keys.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { EnteredReport } from '../../machines/schema.ts';

const MARKER = 'MARKER-unit-entry-31c9';
const SALT = Buffer.from('sixteen byte salt').subarray(0, 16).toString('base64url');

const report = (officerId: string, follow = true): EnteredReport => ({
  channel: 'LETTER',
  receivedOn: new Date().toISOString().slice(0, 10),
  whistleblowerRelation: 'Supplier',
  subsidiary: null,
  protectionOfficer: { id: officerId },
  whistleblower: { name: `Wanda ${MARKER}`, email: null, phone: null, notification: false },
  description: `A letter about invoices ${MARKER}`,
  violation: 'FRAUD',
  repeatedViolations: false,
  reportedPersons: [],
  reportedUnit: 'Purchasing',
  follow,
});

async function logOf(recovery: HandlerKeys, subjects: { id: string; keys: HandlerKeys; officers: string[] }[]) {
  const entries: KeyLogEntry[] = [];
  for (const s of subjects) {
    const prev = entries.at(-1);
    entries.push(await signKeyLogEntry(recovery.ecdsa.privateKey, {
      seq: entries.length + 1, handlerId: s.id, ecdhSpki: toBase64(s.keys.ecdhSpki), ecdsaSpki: toBase64(s.keys.ecdsaSpki), officerIds: s.officers,
      addedAt: new Date().toISOString(), action: 'add', prevHash: prev ? await hashKeyLogEntry(prev) : '', certifierKeyId: await keyId(recovery.ecdsaSpki),
    }));
  }
  return entries;
}

/** The server as the effects see it: the key log given, and every POST recorded. */
function fakeServer(log: { current: unknown }) {
  const sent: { path: string; body: unknown }[] = [];
  const api = {
    json: async (path: string, init?: { method?: string; body?: unknown }) => {
      if (path === '/api/public/key-log') return log.current;
      sent.push({ path, body: init?.body });
      if (path === '/api/handler/case-entry/reservation') return { reservation: 'r'.repeat(43), caseNumber: '1234567812345678', salt: SALT, expiresAt: new Date().toISOString() };
      if (path === '/api/handler/case-entry/sealed' || path === '/api/handler/case-entry') return { caseDto: { caseNumber: '1234567812345678' } };
      throw new Error(`unexpected ${path}`);
    },
  } as unknown as ApiClient;
  return { api, sent };
}

function memory(): Pick<Storage, 'getItem' | 'setItem'> {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
}

describe('report entry effects', () => {
  it('seals in the page at a company whose log verifies: envelopes and wraps only; the slip\'s number and password open the reporter\'s wrap; every entitled key and the recovery key get the data key', async () => {
    const recovery = await makeHandlerKeys();
    const [hanne, otto] = await Promise.all([makeHandlerKeys(), makeHandlerKeys()]);
    const entries = await logOf(recovery, [{ id: 'hanne', keys: hanne, officers: ['A'] }, { id: 'otto', keys: otto, officers: ['B'] }]);
    const log = { current: { sealedCases: 'browser', anchor: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki), fingerprint: 'x' }, entries } };
    const { api, sent } = fakeServer(log);
    const effects = caseEntryEffects(api, handlerKeys(api, memory(), 'sealed.test'));

    const answer = await effects.enterCase(report('A'));
    expect(answer).toMatchObject({ status: 201, caseNumber: '1234567812345678' });
    expect(answer.password).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){4}$/);
    expect(sent.map((s) => s.path)).toEqual(['/api/handler/case-entry/reservation', '/api/handler/case-entry/sealed']);
    const body = sent[1]!.body as { caseId: string; channel: string; receivedOn: string; caseAccount: { verifier: string; kdf: never }; envelopes: { details: string; whistleblower: string }; wraps: { recipientKeyId: string; kind: string; wrap: string }[] };
    expect(JSON.stringify(body)).not.toContain(MARKER);
    expect(JSON.stringify(body)).not.toContain(answer.password!);
    expect(body.channel).toBe('LETTER');
    // Hanne's key and the recovery key, not Otto's (another officer), and the reporter's.
    expect(body.wraps.map((w) => w.kind).sort()).toEqual(['handler', 'recovery', 'reporter']);
    expect(body.wraps.find((w) => w.kind === 'handler')!.recipientKeyId).toBe(await keyId(hanne.ecdhSpki));

    // The reporter's sign-in derives the same keys from the slip (the form's derivation, the reservation's salt).
    const reporterKeys = await deriveReporterKeys({ caseNumber: '1234567812345678', password: answer.password!, salt: fromBase64(SALT.replace(/-/g, '+').replace(/_/g, '/') + '=='), kdf: body.caseAccount.kdf });
    expect(Buffer.from(reporterKeys.verifier).toString('base64url')).toBe(body.caseAccount.verifier);
    const at = { caseId: body.caseId, epoch: 1 };
    const fromReporter = await unwrapDataKey(reporterKeys.reporterKey, fromBase64(body.wraps.find((w) => w.kind === 'reporter')!.wrap), at);
    const fromHanne = await openSealedBox(hanne.ecdh, fromBase64(body.wraps.find((w) => w.kind === 'handler')!.wrap), { ...at, recipientKeyId: await keyId(hanne.ecdhSpki) });
    const fromRecovery = await openSealedBox(recovery.ecdh, fromBase64(body.wraps.find((w) => w.kind === 'recovery')!.wrap), { ...at, recipientKeyId: await keyId(recovery.ecdhSpki) });
    expect(Buffer.from(fromHanne).equals(Buffer.from(fromReporter))).toBe(true);
    expect(Buffer.from(fromRecovery).equals(Buffer.from(fromReporter))).toBe(true);
    const opened = await openCaseParts<{ description: string; reportedUnit: string }, { name: string }>(fromReporter, { caseId: body.caseId, envelopes: body.envelopes, messages: [] });
    expect(opened.details).toMatchObject({ description: `A letter about invoices ${MARKER}`, reportedUnit: 'Purchasing' });
    expect(opened.whistleblower).toMatchObject({ name: `Wanda ${MARKER}` });

    // Unfollowed: no reservation, no reporter wrap, no password.
    sent.length = 0;
    const unfollowed = await effects.enterCase(report('A', false));
    expect(unfollowed).toMatchObject({ status: 201, password: null });
    expect(sent.map((s) => s.path)).toEqual(['/api/handler/case-entry/sealed']);
    expect((sent[0]!.body as { wraps: { kind: string }[] }).wraps.map((w) => w.kind).sort()).toEqual(['handler', 'recovery']);

    // An officer with no certified key: server-keyed, as the form's cases for that officer are.
    sent.length = 0;
    const plain = await effects.enterCase(report('C'));
    expect(sent.map((s) => s.path)).toEqual(['/api/handler/case-entry']);
    expect(sent[0]!.body).toMatchObject({ description: `A letter about invoices ${MARKER}`, caseAccount: { follow: true, password: plain.password } });

    // The server drops the anchor this browser saw: refused, nothing sent.
    sent.length = 0;
    log.current = { sealedCases: 'browser', anchor: null as never, entries: [] };
    expect(await effects.enterCase(report('A'))).toEqual({ status: 409, code: 'KEY_LOG_ANCHOR' });
    expect(sent).toEqual([]);
  });

  it('goes the plain way at a company without a recovery key, the generated password in the account', async () => {
    const log = { current: { sealedCases: 'browser', anchor: null, entries: [] } };
    const { api, sent } = fakeServer(log);
    const effects = caseEntryEffects(api, handlerKeys(api, memory(), 'plain.test'));
    const answer = await effects.enterCase(report('A'));
    expect(answer).toMatchObject({ status: 201, caseNumber: '1234567812345678' });
    expect(sent.map((s) => s.path)).toEqual(['/api/handler/case-entry']);
    const body = sent[0]!.body as Record<string, unknown>;
    expect(body).toMatchObject({ channel: 'LETTER', caseAccount: { follow: true, password: answer.password } });
    expect(body).not.toHaveProperty('follow');
  });
});
