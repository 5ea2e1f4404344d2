/**
 * Handlers' keys in real Chromium against the real server (issue 37; docs/decisions/
 * blind-server.md, "Handlers" and "Key authenticity"). Two handlers of one company enrol
 * through the CLI's links: each browser makes and seals its keys. The first makes the
 * company's recovery key in the workspace (its private half shown once), which certifies
 * her key; she certifies the second after comparing his fingerprint. A reload locks the
 * keys: a wrong password does not open them, the password does, and so does the key
 * recovery code. A log the server shortened behind a browser's back is refused there.
 * Every request the browsers sent is recorded: none carries a password, a recovery
 * code or any private key's bytes.
 */
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import * as OTPAuth from 'otpauth';
import type { Page } from 'playwright-core';
import { axeViolations } from './harness.ts';
import { browserSuite, completeEnrolment, english, keysPage, signInHandler, textOf, totp, NO_THROTTLE, type PageHandler } from '../helpers/sealed-e2e.ts';
import { deriveHandlerSecret, fromBase64, fromUtf8, utf8, verifyKeyLog, type Kdf } from '../../core/crypto/index.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { gcmOpen } from '../../core/crypto/aead.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const { msg } = english('handler', 'keys');

const PASSWORDS = { hanne: 'hanne long passphrase 1', otto: 'otto long passphrase 22' };
/** Every page's requests are recorded: URL, headers and body. */
const s = browserSuite(NO_THROTTLE);

async function open() {
  return (await s.open()).page;
}

async function cli(...args: string[]) {
  return run(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/cli/handler.ts', '--url', s.portal.server.url, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: s.portal.server.dataDir, DATABASE_URL: s.portal.server.config.databaseUrl ?? '' },
  });
}

interface Enrolled extends PageHandler {
  name: 'hanne' | 'otto';
  keyRecoveryCode: string;
  signInCodes: string[];
}

async function enrol(name: 'hanne' | 'otto'): Promise<Enrolled> {
  const email = `${name}@example.org`;
  const { stdout } = await cli('create-account', '--company', 'localhost', '--name', name, '--email', email);
  const link = stdout.trim().split('\n')[1]!;
  const page = await open();
  await page.goto(link);
  const secret = await completeEnrolment(page, PASSWORDS[name]);
  await page.getByText(msg('keys.enrol.loss')).waitFor();
  const keyRecoveryCode = (await page.getByTestId('key-recovery-code').textContent())!.trim();
  expect(keyRecoveryCode).toMatch(/^([0-9A-Z]{4}-){6}[0-9A-Z]{4}$/);
  const signInCodes = (await page.getByRole('list', { name: msg('handler.enrol.recoveryTitle') }).getByRole('listitem').allTextContents()).map((c) => c.trim());
  return { name, email, password: PASSWORDS[name], secret, step: 0, keyRecoveryCode, signInCodes, page };
}

const signIn = (h: Enrolled) => signInHandler(s.portal, 'localhost', h);

async function unlock(page: Page, secret: string) {
  await page.getByLabel(msg('keys.unlock.secret')).fill(secret);
  await page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
}

/** What a handler's sealed private keys hold, opened here with the password: the strings that must never be on the wire. */
async function privateKeyStrings(email: string, password: string): Promise<string[]> {
  const row = await s.portal.server.ctx.db.selectFrom('handler_account').select(['key_salt', 'key_kdf', 'keys_sealed']).where('email', '=', email).executeTakeFirstOrThrow();
  const { keysKey } = await deriveHandlerSecret({ password }, new Uint8Array(row.key_salt!), JSON.parse(row.key_kdf!) as Kdf);
  const sealed = new Uint8Array(row.keys_sealed!);
  const plain = JSON.parse(fromUtf8(await gcmOpen(keysKey, sealed.subarray(1, 13), utf8('wb:handler:keys'), sealed.subarray(13)))) as { ecdh: string; ecdsa: string };
  return privateForms(plain);
}

/** A PKCS#8 pair in base64 and each key's private scalar (JWK `d`, base64url). */
async function privateForms(pair: { ecdh: string; ecdsa: string }): Promise<string[]> {
  const out = [pair.ecdh, pair.ecdsa];
  for (const [b64, alg, usages] of [[pair.ecdh, 'ECDH', ['deriveBits']], [pair.ecdsa, 'ECDSA', ['sign']]] as const) {
    const key = await crypto.subtle.importKey('pkcs8', fromBase64(b64), { name: alg, namedCurve: 'P-256' }, true, [...usages]);
    out.push((await crypto.subtle.exportKey('jwk', key)).d!);
  }
  return out;
}

describe("handlers' keys in the browser", () => {
  it('enrol two handlers, make the recovery key, certify both, unlock after a reload; nothing secret on the wire', async () => {
    const { portal } = s;
    const hanne = await enrol('hanne');
    const otto = await enrol('otto');

    // Hanne, the company's first handler, makes its recovery key in her workspace.
    await signIn(hanne);
    await keysPage(hanne.page);
    await hanne.page.getByRole('heading', { name: msg('keys.anchor.title') }).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await hanne.page.getByRole('button', { name: msg('keys.anchor.make') }).click();
    await hanne.page.getByRole('heading', { name: msg('keys.anchor.shownTitle') }).waitFor();
    const printed = (await hanne.page.getByTestId('company-recovery-key').textContent())!;
    const recoveryPrivate = JSON.parse(atob(printed.replace(/\s/g, ''))) as { kind: string; ecdh: string; ecdsa: string };
    expect(recoveryPrivate.kind).toBe('wb-company-recovery-key');
    await hanne.page.getByRole('button', { name: msg('keys.anchor.printed') }).click();
    await hanne.page.getByText(msg('keys.page.certified')).waitFor();
    const anchorShown = (await hanne.page.getByTestId('anchor-fingerprint').textContent())!;

    // Otto's key waits; his page shows his fingerprint to read out.
    await signIn(otto);
    await keysPage(otto.page);
    await otto.page.getByText(msg('keys.page.pending')).waitFor();
    const ottoFingerprint = (await otto.page.getByTestId('own-fingerprint').textContent())!.trim();
    expect(await otto.page.getByTestId('anchor-fingerprint').textContent()).toBe(anchorShown);

    // A reload locks Hanne's keys: a wrong password does not open them, hers does.
    await hanne.page.reload();
    await hanne.page.getByRole('heading', { name: msg('keys.unlock.title') }).waitFor();
    await hanne.page.getByText(msg('keys.page.locked')).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await unlock(hanne.page, 'not her passphrase at all');
    await hanne.page.getByText(msg('keys.unlock.refused')).waitFor();
    await unlock(hanne.page, PASSWORDS.hanne);
    await hanne.page.getByRole('heading', { name: msg('keys.pending.title') }).waitFor();
    expect(await hanne.page.getByRole('heading', { name: msg('keys.unlock.title') }).count()).toBe(0);

    // She certifies Otto after comparing the fingerprint the dialog shows with his.
    const row = hanne.page.locator('li', { hasText: 'otto@example.org' });
    await row.getByText(msg('keys.pending.fingerprint', { fingerprint: ottoFingerprint })).waitFor();
    await row.getByRole('button', { name: msg('keys.pending.certify', { name: 'otto' }) }).click();
    const dialog = hanne.page.getByRole('alertdialog');
    await dialog.getByText(ottoFingerprint, { exact: false }).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await dialog.getByRole('button', { name: msg('keys.pending.confirm') }).click();
    await hanne.page.getByText(msg('keys.pending.none')).waitFor();

    // Otto, after a reload, opens his keys with his key recovery code and sees his key certified.
    await otto.page.reload();
    await unlock(otto.page, otto.keyRecoveryCode.toLowerCase());
    await otto.page.getByText(msg('keys.page.certified')).waitFor();

    // A lost password: the key recovery code signs in in its place (a sign-in recovery code for the second factor) and opens the keys.
    await otto.page.getByRole('button', { name: msg('handler.bar.signOut') }).click();
    await otto.page.getByLabel(msg('handler.signIn.email')).waitFor();
    await otto.page.getByLabel(msg('handler.signIn.email')).fill(otto.email);
    await otto.page.getByLabel(msg('handler.signIn.password')).fill(otto.keyRecoveryCode);
    await otto.page.getByLabel(msg('handler.signIn.code')).fill(otto.signInCodes[0]!);
    await otto.page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
    await otto.page.waitForURL((u) => u.pathname === '/handler/cases');
    await keysPage(otto.page);
    await otto.page.getByText(msg('keys.page.certified')).waitFor();
    expect(await otto.page.getByRole('heading', { name: msg('keys.unlock.title') }).count()).toBe(0);

    // The log the reporter's browser will check: anchor → Hanne → Otto, both keys active.
    const log = (await (await fetch(portal.url('localhost', '/api/public/key-log'), { headers: { 'x-company-host': 'localhost' } })).json()) as { anchor: { ecdsaSpki: string }; entries: unknown[] };
    const checked = await verifyKeyLog(log.entries, fromBase64(log.anchor.ecdsaSpki));
    expect(checked.ok && checked.keys.length).toBe(2);

    // Otto disabled: his key stays in the log (only a certifier's signed remove entry takes
    // it out), but Hanne's keys page lists it apart, no live recipient; enabled, live again.
    await cli('disable', '--company', 'localhost', otto.email);
    await hanne.page.reload();
    await unlock(hanne.page, PASSWORDS.hanne);
    const closed = hanne.page.getByTestId('closed-keys');
    await closed.getByText(msg('keys.closed.disabled', { name: 'otto' })).waitFor();
    await closed.getByText(msg('keys.pending.fingerprint', { fingerprint: ottoFingerprint })).waitFor();
    expect(await hanne.page.locator('li', { hasText: 'otto@example.org' }).count()).toBe(0);
    expect(await axeViolations(hanne.page)).toEqual([]);
    await cli('enable', '--company', 'localhost', otto.email);
    await hanne.page.reload();
    await unlock(hanne.page, PASSWORDS.hanne);
    await hanne.page.getByText(msg('keys.pending.none')).waitFor();
    expect(await closed.count()).toBe(0);

    // A server that drops the last entry is caught by a browser that saw it.
    await portal.server.ctx.db.deleteFrom('key_log_entry').where('seq', '=', 2).execute();
    await hanne.page.reload();
    await unlock(hanne.page, PASSWORDS.hanne);
    await hanne.page.getByText(msg('keys.page.refused', { reason: 'fork' })).waitFor();

    // Nothing secret ever left a browser: no password, no recovery code, no private key in any form.
    const secrets = [
      PASSWORDS.hanne,
      PASSWORDS.otto,
      hanne.keyRecoveryCode,
      otto.keyRecoveryCode,
      otto.keyRecoveryCode.replace(/-/g, ''),
      ...(await privateKeyStrings(hanne.email, PASSWORDS.hanne)),
      ...(await privateKeyStrings(otto.email, PASSWORDS.otto)),
      ...(await privateForms(recoveryPrivate)),
    ];
    const wire = (await s.recorded()).filter((r) => r.what.startsWith('→'));
    expect(wire.length).toBeGreaterThan(20);
    const recorded = wire.map(textOf).join('\n');
    // The recording holds the bodies: the verifier sign-ins and the sealed keys Hanne's browser sent are in it.
    const sent = await portal.server.ctx.db.selectFrom('handler_account').select('keys_sealed').where('email', '=', hanne.email).executeTakeFirstOrThrow();
    expect(recorded).toContain(Buffer.from(sent.keys_sealed!).toString('base64'));
    expect(recorded).toContain('"verifier":"');
    for (const s of secrets) {
      expect(recorded).not.toContain(s);
      expect(recorded).not.toContain(encodeURIComponent(s));
    }
  }, 240_000);

  it('a legacy account (a hash of the password, no keys) gets its keys at its next sign-in and its key recovery code once', async () => {
    const { portal } = s;
    const ctx = portal.server.ctx;
    const account = await createHandlerAccount(ctx.db, 'nordlys-energi', 'Lea', { email: 'lea@example.org' });
    const secret = new OTPAuth.Secret({ size: 20 });
    const password = 'lea old long passphrase';
    await ctx.db
      .updateTable('handler_account')
      .set({ password_hash: await ctx.passwords.hash(password), totp_secret_enc: ctx.crypto.sealWithMaster(`handler-totp:${account.id}`, secret.bytes), enrolled_at: new Date(), enrolment_code_hash: null, enrolment_expires_at: null })
      .where('id', '=', account.id)
      .execute();
    const page = await open();
    await page.goto(portal.url('localhost', '/handler'));
    await page.getByLabel(msg('handler.signIn.email')).fill('lea@example.org');
    await page.getByLabel(msg('handler.signIn.password')).fill(password);
    await page.getByLabel(msg('handler.signIn.code')).fill(totp(secret.base32, 0));
    await page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
    await page.getByRole('heading', { name: msg('keys.upgrade.title') }).waitFor();
    const code = (await page.getByTestId('key-recovery-code').textContent())!.trim();
    expect(code).toMatch(/^([0-9A-Z]{4}-){6}[0-9A-Z]{4}$/);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: msg('keys.upgrade.noted') }).click();
    await keysPage(page);
    await page.getByText(msg('keys.page.pending')).waitFor();
    // The account now has keys and a verifier's hash: the old password hash is gone.
    const row = await ctx.db.selectFrom('handler_account').select(['password_hash', 'key_salt']).where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(row.key_salt).not.toBeNull();
    expect(await ctx.passwords.verify(row.password_hash!, password)).toBe(false);
    // After a reload the keys open with the same password, derived in the page now.
    await page.reload();
    await unlock(page, password);
    await page.getByText(msg('keys.page.pending')).waitFor();
  }, 120_000);
});
