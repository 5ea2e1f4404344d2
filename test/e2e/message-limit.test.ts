/**
 * Past the case's message budget (issue 36, finding 4; docs/decisions/submission-abuse.md)
 * in real Chromium against the real server and the built SPA: the server's 429 keeps
 * the typed text in the composer, which says how many minutes to wait (from
 * Retry-After), and nothing more is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';
import { pageTranslator } from './journey-kit.ts';

const PASSWORD = 'message-limit-1';

let browser: Browser;
let portal: Portal;
let opened: OpenedPage | undefined;

beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal({ caseWriteRateLimit: { max: 1, windowSeconds: 600 } })]);
}, 120_000);

afterAll(async () => {
  await opened?.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

describe('the chat composer past the budget', () => {
  it('a 429 keeps the typed text and says how many minutes to wait', async () => {
    const caseNumber = await createOnlineCase(portal, { officerId: await firstOfficerId(portal), password: PASSWORD });
    opened = await openPage(browser, { locale: 'en-GB' });
    const { page } = opened;
    await signInThroughProvider(portal, page, caseNumber, PASSWORD, '/private/messages');
    const t = await pageTranslator(page, 'private');
    const composer = page.getByRole('form', { name: t('private.messages.composer') });
    await composer.waitFor();
    const field = composer.getByLabel(t('private.messages.label'), { exact: true });
    const send = composer.getByRole('button', { name: t('private.messages.send') });

    await field.fill('First part of the account.');
    await send.click();
    await page.getByText('First part of the account.').first().waitFor();
    await expect.poll(() => field.inputValue()).toBe('');

    await field.fill('Second part of the account.');
    await send.click();
    const notice = composer.getByTestId('chat-rate-limited');
    await notice.waitFor();
    // The window is ten minutes, just started.
    expect(await notice.textContent()).toBe('Too many messages have been sent in a short time. Your message is kept here: please try again in 10 minutes.');
    expect(await field.inputValue()).toBe('Second part of the account.');
    expect(await send.isEnabled()).toBe(true);

    const row = await portal.server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    const messages = await portal.server.ctx.db.selectFrom('case_message').select('id').where('case_id', '=', row.id).where('created_by', '=', caseNumber).execute();
    expect(messages).toHaveLength(1);
  });
});
