/**
 * The public side of the mobile journey (issue 17 §2) in jsdom: errors only on
 * touched fields or after a Send that came while the field was shown, a lone
 * protection officer shown as who receives the report, required asterisks kept with
 * their last word, phone hints in the company's format, tap-to-call numbers on the
 * oral-report page with how to hide one's own number. Real machine; effects supplied.
 */
import { Suspense, type ReactNode } from 'react';
import { beforeAll, describe, expect, it } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { AppProviders } from '../../src/app/lookAndFeel.tsx';
import { createApiClient } from '../../src/api/client.ts';
import { I18nProvider, loadCatalogue } from '../../src/i18n/index.ts';
import { ReportProvider, ReportView } from '../../src/forms/ReportPage.tsx';
import { TelLink } from '../../src/components/TelLink.tsx';
import { FormLoading } from '../../src/components/FormLoading.tsx';
import * as formStyles from '../../src/forms/ReportForm.css.ts';
import { createReportMachine, type CompanyInfo, type ReportChannel, type SubmitOutcome, type SubmitReportInput } from '../../machines/report.ts';
import common from '../../src/i18n/common/en.json';
import forms from '../../src/i18n/forms/en.json';

const en: Record<string, string> = { ...common, ...forms };
const msg = (key: string, values: Record<string, string | number> = {}) =>
  en[key]!.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));

const ONE: CompanyInfo = {
  protectionOfficers: [
    { id: 'po-1', name: 'Anne Sørensen', jobTitle: 'Lawyer', company: 'Holm & Lund', phone: '+4570203040', customerRelation: 'EXTERNAL', logoUrl: '/api/logo/po-1' },
  ],
  subsidiaries: [],
};
const TWO: CompanyInfo = {
  protectionOfficers: [
    ...ONE.protectionOfficers,
    { id: 'po-2', name: 'Bo Lund', jobTitle: null, company: null, phone: '+4722222222', customerRelation: 'INTERNAL', logoUrl: null },
  ],
  subsidiaries: [],
};
const PROOF = { challenge: 'v1.4.0.x.y', nonce: '1', expiresAt: '2099-01-01T00:00:00Z' };
const api = createApiClient({ baseUrl: 'http://portal.test', companyHost: 'portal.test', fetch: () => new Promise(() => {}) });

function Providers({ children }: { children: ReactNode }) {
  return (
    <AppProviders api={api} initialLanguage="en">
      {() => (
        <I18nProvider language="en">
          <Suspense fallback={<p>loading</p>}>{children}</Suspense>
        </I18nProvider>
      )}
    </AppProviders>
  );
}

function setup(channel: ReportChannel, company: CompanyInfo = ONE) {
  const machine = createReportMachine(channel).provide({
    actors: {
      loadCompanyInfo: fromPromise(async () => company),
      submitReport: fromPromise<SubmitOutcome, SubmitReportInput>(async () => null),
      solveProofOfWork: fromPromise(async () => PROOF),
    },
    actions: { copyCaseNumber: () => {}, goToFrontPage: () => {}, goToLogin: () => {}, goToErrorPage: () => {} },
  });
  render(
    <Providers>
      <ReportProvider machine={machine}>
        <ReportView />
      </ReportProvider>
    </Providers>,
  );
  return userEvent.setup();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const field = (key: string) => screen.getByLabelText(new RegExp(`^${escape(en[key]!)}\\*?$`));
const radio = (key: string) => screen.getByRole('radio', { name: en[key] });
const terms = () => screen.getByRole('checkbox', { name: new RegExp(escape(en['forms.terms.accept']!)) });
const invalid = (el: Element) => el.getAttribute('aria-invalid') === 'true';

/** Send with the form incomplete, and close the validation dialog. */
async function sendIncomplete(user: ReturnType<typeof userEvent.setup>, channel: ReportChannel = 'online') {
  await user.click(screen.getByRole('button', { name: en[`forms.send.${channel}`] }));
  const dialog = await screen.findByRole('alertdialog', { name: en['dialog.validation.title'] });
  await user.click(within(dialog).getByRole('button', { name: en['dialog.validation.ok'] }));
  await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
}

beforeAll(async () => {
  await Promise.all([loadCatalogue('common', 'en'), loadCatalogue('forms', 'en')]);
});

describe('errors only after a touch or a Send, never on fields just revealed', { timeout: 30_000 }, () => {
  it('online: identity, persons and password fields revealed after Send are quiet until left or Send again', async () => {
    const user = setup('online');
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(terms());
    await sendIncomplete(user);
    // Fields shown at the Send carry their error (the relation is empty).
    expect(invalid(field('forms.relation.label'))).toBe(true);
    // Revealed now: no error yet.
    await user.click(radio('forms.identity.reveal'));
    await user.click(radio('forms.related.persons'));
    await user.click(radio('forms.follow.follow'));
    const revealed = [
      'forms.identity.name',
      'forms.identity.email',
      'forms.related.name',
      'forms.related.jobTitle',
      'forms.related.phoneOrEmail',
      'forms.follow.password',
      'forms.follow.confirm',
    ];
    for (const key of revealed) expect(invalid(field(key)), key).toBe(false);
    expect(screen.queryByText(en['validation.required']!, { selector: '[data-step="identity"] p' })).toBeNull();
    // Left without typing: that one field speaks.
    await user.click(field('forms.identity.name'));
    await user.tab();
    expect(invalid(field('forms.identity.name'))).toBe(true);
    expect(invalid(field('forms.identity.email'))).toBe(false);
    // Send again (a password typed, so Send is enabled): now the shown fields say what they need.
    await user.type(field('forms.follow.password'), 'abcd');
    await user.type(field('forms.follow.confirm'), 'abcd');
    await sendIncomplete(user);
    for (const key of ['forms.identity.name', 'forms.identity.email', 'forms.related.name', 'forms.related.jobTitle', 'forms.related.phoneOrEmail']) {
      expect(invalid(field(key)), key).toBe(true);
    }
  });

  it('the identity phone revealed after Send: no error while typing, only on leaving it', async () => {
    const user = setup('online');
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(terms());
    await sendIncomplete(user);
    await user.click(radio('forms.identity.reveal'));
    const phone = () => screen.getByLabelText(en['forms.identity.phone']!);
    // The phone input is its own chunk, fetched when the identity is revealed.
    await waitFor(() => expect((phone() as HTMLInputElement).disabled).toBe(false), { timeout: 10_000 });
    await user.clear(phone());
    await user.type(phone(), '+451234567');
    expect(invalid(phone())).toBe(false);
    await user.tab();
    await waitFor(() => expect(invalid(phone())).toBe(true), { timeout: 5_000 });
  });

  it('online: the company field revealed after Send is quiet too', async () => {
    const user = setup('online');
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(terms());
    await sendIncomplete(user);
    await user.click(radio('forms.related.company'));
    expect(invalid(field('forms.related.unit'))).toBe(false);
  });

  it('oral and meeting: the identity fields revealed after Send are quiet', async () => {
    for (const channel of ['oral', 'meeting'] as const) {
      const user = setup(channel);
      await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
      await user.type(field('forms.follow.password'), 'abcd');
      await user.type(field('forms.follow.confirm'), 'abcd');
      await user.click(terms());
      await sendIncomplete(user, channel);
      expect(invalid(field('forms.relation.label'))).toBe(true);
      await user.click(radio('forms.identity.reveal'));
      expect(invalid(field('forms.identity.name'))).toBe(false);
      expect(invalid(field('forms.identity.email'))).toBe(false);
      document.body.innerHTML = '';
    }
  });
});

describe('the protection officer', { timeout: 30_000 }, () => {
  it('a lone officer is shown as who receives the report, not as a choice', async () => {
    setup('online', ONE);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    const step = document.querySelector('[data-step="protectionOfficer"]')!;
    expect(within(step as HTMLElement).queryByRole('radio')).toBeNull();
    expect(within(step as HTMLElement).queryByRole('group')).toBeNull();
    expect(step.querySelector('h2')!.textContent).toContain(en['forms.step.protectionOfficer.titleLone']);
    expect(step.textContent).toContain(en['forms.officer.receiver']);
    expect(step.textContent).toContain('Anne Sørensen');
    expect(step.textContent).not.toContain('*');
    // The logo is not squeezed into a 48 × 48 square: no fixed width, its own class.
    const logo = step.querySelector('img')!;
    expect(logo.getAttribute('width')).toBeNull();
    expect(logo.className).toBe(formStyles.officerLogoLarge);
  });

  it('several officers stay a required choice', async () => {
    setup('online', TWO);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    expect(screen.getAllByRole('radio', { name: /Anne Sørensen|Bo Lund/ })).toHaveLength(2);
    const step = document.querySelector('[data-step="protectionOfficer"]')!;
    expect(step.querySelector('h2')!.textContent).toContain(en['forms.step.protectionOfficer.title']);
  });

  it('oral report: the officers\' numbers are tap-to-call links in groups, with how to hide one\'s own number', async () => {
    for (const company of [ONE, TWO]) {
      setup('oral', company);
      await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
      const link = screen.getByRole('link', { name: msg('forms.officer.phone', { phone: '+45 70 20 30 40' }) });
      expect(link.getAttribute('href')).toBe('tel:+4570203040');
      expect(document.querySelector('[data-step="protectionOfficer"]')!.textContent).toContain(common['phone.hideNumber']);
      document.body.innerHTML = '';
    }
  });
});

describe('labels and step headers', { timeout: 30_000 }, () => {
  it('every required asterisk is kept together with the last word of its label', async () => {
    const user = setup('online', TWO);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(radio('forms.identity.reveal'));
    await user.click(radio('forms.related.persons'));
    await user.click(radio('forms.follow.follow'));
    const stars = [...document.querySelectorAll('[aria-hidden="true"]')].filter((e) => e.textContent === '*');
    expect(stars.length).toBeGreaterThan(10);
    for (const star of stars) {
      const holder = star.parentElement!;
      expect(holder.className, holder.textContent!).toBe(formStyles.keepTogether);
      // The last word and the asterisk, no space between them to break at.
      expect(holder.textContent).toMatch(/^\S+\*$/);
    }
  });

  it('every step header has the same parts in the same order, in every channel', async () => {
    for (const channel of ['online', 'oral', 'meeting'] as const) {
      setup(channel, TWO);
      const headings = await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
      for (const h of headings) {
        expect(h.className).toBe(formStyles.stepHeading);
        expect([...h.children].map((c) => c.className)).toEqual([formStyles.stepTitle, formStyles.counter]);
      }
      document.body.innerHTML = '';
    }
  });
});

describe('phone hints and numbers', { timeout: 30_000 }, () => {
  it('the person\'s phone hint and error show a number as people write it, and that grouped form is accepted', async () => {
    const user = setup('online');
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(radio('forms.related.persons'));
    // The built-in defaults name no company country: the display language's (en → GB).
    const example = '+44 7700 900123';
    const box = field('forms.related.phoneOrEmail');
    expect(document.getElementById(box.getAttribute('aria-describedby')!.split(' ')[0]!)!.textContent).toBe(
      msg('forms.related.phoneOrEmailHint', { example }),
    );
    await user.type(box, '12');
    await user.tab();
    expect(invalid(box)).toBe(true);
    expect(screen.getByText(msg('validation.phoneOrEmail', { example }))).toBeTruthy();
    expect(document.body.textContent).not.toContain('xxxx');
    // Typed in groups, as the hint shows it: accepted and added.
    await user.clear(box);
    await user.type(box, '+45 12 34 56 78');
    expect(invalid(box)).toBe(false);
    await user.type(field('forms.related.name'), 'Per Hansen');
    await user.type(field('forms.related.jobTitle'), 'CFO');
    await user.click(screen.getByRole('button', { name: en['forms.related.add'] }));
    expect(screen.getByRole('list', { name: en['forms.related.added'] }).textContent).toContain('+45 12 34 56 78');
  });

  it('TelLink: grouped for the eye, compact for the dialler, with the hint on hiding one\'s number', async () => {
    render(
      <Providers>
        <TelLink phone="+4570203040" testId="t" hideNumberHint />
      </Providers>,
    );
    const link = await screen.findByTestId('t');
    expect(link.textContent).toBe('+45 70 20 30 40');
    expect(link.getAttribute('href')).toBe('tel:+4570203040');
    expect(document.body.textContent).toContain(common['phone.hideNumber']);
  });

  it('FormLoading says the form is loading, from the common catalogue', async () => {
    render(
      <Providers>
        <FormLoading />
      </Providers>,
    );
    expect((await screen.findByRole('status')).textContent).toBe(en['page.loadingForm']);
  });
});
