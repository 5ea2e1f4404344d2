/**
 * The inbox's summaries opened in the browser (src/handler/searchIndex.ts): a sealed
 * case's envelopes open with the handler's own key into its category, language and
 * words; a server-keyed one is taken as opened; opened summaries are kept for the
 * sitting (not asked again), unopened ones are not (tried again once the keys unlock);
 * another account or sign-out drops them.
 */
import { describe, expect, it } from 'vitest';
import { keyId, makeHandlerKeys, sealMessage, sealNewCase } from '../../core/crypto/index.ts';
import { forgetSearchIndex, openSummaries, rememberedSearch, rememberSearch } from '../../src/handler/searchIndex.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { OpenedKeys } from '../../machines/handler/session.ts';

describe('the inbox summaries opened in the browser', () => {
  it('opens a sealed case with the own key, takes a server-keyed one as it came, and keeps only what opened', async () => {
    forgetSearchIndex();
    const hanne = await makeHandlerKeys();
    const recovery = await makeHandlerKeys();
    const hanneId = await keyId(hanne.ecdhSpki);
    const sealed = await sealNewCase(
      { ok: true, handlers: [{ ecdhSpki: hanne.ecdhSpki, ecdhKeyId: hanneId } as never], recovery: { spki: recovery.ecdhSpki, keyId: await keyId(recovery.ecdhSpki) }, head: null },
      { details: { description: 'The Fuel card was used', violation: 'FRAUD', reportedPersons: [{ name: 'Jörg Olsen' }], reportedUnit: 'Garage', language: 'de' } },
    );
    const message = await sealMessage(sealed.dataKey, sealed.caseId, 'A receipt from the petrol station');
    const own = sealed.wraps.find((w) => w.recipientKeyId === hanneId)!;
    const wires = [
      { caseNumber: '1111222233334444', sealed: true, caseId: sealed.caseId, epoch: 1, wrap: own, links: [], envelopes: { details: sealed.envelopes.details, whistleblower: null }, messages: [{ id: message.id, epoch: 1, body: message.body }], notes: [] },
      { caseNumber: '5555666677778888', sealed: false, violation: 'THEFT', language: null, texts: ['Stock missing', 'Depot'] },
    ];
    const asked: string[][] = [];
    const api = {
      json: async (_path: string, init: { body: { caseNumbers: string[] } }) => {
        asked.push(init.body.caseNumbers);
        return { summaries: wires.filter((w) => init.body.caseNumbers.includes(w.caseNumber)) };
      },
    } as unknown as ApiClient;
    const keys = { ecdh: hanne.ecdh, ecdsa: hanne.ecdsa, ecdhSpki: hanne.ecdhSpki, ecdsaSpki: hanne.ecdsaSpki } as OpenedKeys;
    const numbers = wires.map((w) => w.caseNumber);

    // Keys locked: the sealed case does not open, and is not kept.
    const locked = await openSummaries(api, 'h1', null, numbers);
    expect(locked.summaries['1111222233334444']).toEqual({ opened: false });
    expect(locked.summaries['5555666677778888']).toEqual({ opened: true, category: 'THEFT', language: null, text: 'stock missing depot' });

    const opened = await openSummaries(api, 'h1', keys, numbers);
    expect(asked.at(-1)).toEqual(['1111222233334444']);
    const s = opened.summaries['1111222233334444']!;
    expect(s).toMatchObject({ opened: true, category: 'FRAUD', language: 'de' });
    // Lower case, accents folded, the person, the unit and the message searched too.
    expect(s.opened && s.text).toBe('the fuel card was used garage jorg olsen a receipt from the petrol station');

    // Both kept now: nothing asked again in this sitting.
    const before = asked.length;
    await openSummaries(api, 'h1', keys, numbers);
    expect(asked.length).toBe(before);

    // The words searched are remembered for the account, in memory; another account drops everything.
    rememberSearch('h1', 'fuel');
    expect(rememberedSearch('h1')).toBe('fuel');
    await openSummaries(api, 'h2', null, ['5555666677778888']);
    expect(asked.at(-1)).toEqual(['5555666677778888']);
    expect(rememberedSearch('h1')).toBe('');
    forgetSearchIndex();
    expect(rememberedSearch('h2')).toBe('');
  });
});
