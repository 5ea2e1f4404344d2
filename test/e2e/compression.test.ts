/**
 * Every JS, CSS, HTML and JSON answer over 1 kB reaches the browser compressed (issue
 * 13): the build's files, the pages, the API's JSON and the embedded OpenID
 * provider's own answers, which are written past Fastify's hooks. Read off real
 * Chromium walking a reporter's visit (public pages, the form, sign-in, the private
 * pages) and the handler's sign-in, against the real server and the built SPA.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Response } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';

const TEXT = /^(text\/(html|css|javascript)|application\/(javascript|json|[\w.+-]+\+json))\b/;

interface Answer {
  path: string;
  type: string;
  encoding: string | undefined;
  bytes: number;
}

let browser: Browser;
let portal: Portal;
let opened: OpenedPage;
const answers: Promise<Answer | null>[] = [];

/** What the browser got, as it got it: the body size is the decoded one. */
async function answerOf(res: Response): Promise<Answer | null> {
  const url = new URL(res.url());
  if (url.origin !== new URL(portal.url()).origin || res.status() < 200 || res.status() >= 300 || res.request().method() === 'HEAD') return null;
  const headers = await res.allHeaders();
  const body = await res.body().catch(() => null);
  if (!body) return null;
  return { path: url.pathname, type: headers['content-type'] ?? '', encoding: headers['content-encoding'], bytes: body.length };
}

beforeAll(async () => {
  portal = await startPortal();
  browser = await launchBrowser();
  opened = await openPage(browser, { locale: 'en-GB', width: 412, height: 823 });
  opened.context.on('response', (res) => answers.push(answerOf(res)));
});

afterAll(async () => {
  await opened?.close();
  await browser?.close();
  await portal?.server.stop();
  await portal?.server.cleanup();
});

describe('what a reporter’s browser downloads', () => {
  it('is compressed wherever it is text over 1 kB, from the first page to the private area and the handler’s sign-in', async () => {
    const { page } = opened;
    for (const path of ['/', '/online-form', '/faq']) {
      await page.goto(portal.url('localhost', path));
      await page.getByRole('main').waitFor();
    }
    const caseNumber = await createOnlineCase(portal, { officerId: await firstOfficerId(portal), password: 'a long enough password' });
    await signInThroughProvider(portal, page, caseNumber, 'a long enough password');
    await page.getByRole('heading', { level: 1 }).waitFor();
    for (const path of ['/private/messages', '/private/report', '/private/info']) {
      await page.goto(portal.url('localhost', path));
      await page.getByRole('heading', { level: 1 }).waitFor();
    }
    await page.goto(portal.url('localhost', '/handler'));
    await page.getByRole('main').waitFor();
    await page.waitForLoadState('networkidle');

    const got = (await Promise.all(answers)).filter((a): a is Answer => a !== null && TEXT.test(a.type));
    // The walk met the kinds of answer it is meant to check, the provider's included.
    expect(got.some((a) => a.path.startsWith('/assets/') && a.bytes > 1024)).toBe(true);
    expect(got.some((a) => a.path.startsWith('/api/') && a.type.startsWith('application/json'))).toBe(true);
    expect(got.some((a) => a.path.endsWith('/.well-known/openid-configuration'))).toBe(true);
    expect(got.some((a) => a.path.endsWith('/token'))).toBe(true);
    const plain = got.filter((a) => a.bytes > 1024 && a.encoding !== 'br' && a.encoding !== 'gzip').map((a) => `${a.path} ${a.type} ${a.bytes} B`);
    expect(plain).toEqual([]);
  });
});
