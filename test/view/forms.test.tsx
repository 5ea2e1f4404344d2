/**
 * The report views (src/forms) in jsdom, driven by role and label through the same
 * paths as the model test: step counter, auto-selected officer, Send enabled only
 * as spec §4 says, the validation dialog and the jump to the first invalid step,
 * every discard dialog confirmed and cancelled, follow forced by notification,
 * documents dropped and picked (five kept, a notice for the rest), upload progress,
 * success with copy and the 2 s hint, failure keeping the draft, the oral variant.
 * The machine is the real one; only its effects are supplied by the test.
 */
import { Suspense, type ReactNode } from 'react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { AppProviders } from '../../src/app/lookAndFeel.tsx';
import { createApiClient } from '../../src/api/client.ts';
import { I18nProvider, loadCatalogue } from '../../src/i18n/index.ts';
import { ReportProvider, ReportView } from '../../src/forms/ReportPage.tsx';
import { companyPhoneCountry } from '../../src/components/PhoneField.tsx';
import {
  createReportMachine,
  type CompanyInfo,
  type ReportChannel,
  type SubmitOutcome,
  type SubmitReportInput,
  type SuccessData,
  type ReserveOutcome,
  type SubmissionProof,
} from '../../machines/report.ts';
import { ALLOWED_EXTENSIONS } from '../../machines/schema.ts';
import { DERIVED, RESERVATION } from '../model/report.kit.ts';
import common from '../../src/i18n/common/en.json';
import forms from '../../src/i18n/forms/en.json';

const en: Record<string, string> = { ...common, ...forms };
const msg = (key: string, values: Record<string, string | number> = {}) =>
  en[key]!.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));

const ONE: CompanyInfo = {
  protectionOfficers: [
    { id: 'po-1', name: 'Anne Sørensen', jobTitle: 'Lawyer', company: 'Holm & Lund', phone: '+4570203040', customerRelation: 'EXTERNAL', logoUrl: null },
  ],
  subsidiaries: [],
};
const SUCCESS: SuccessData = { caseDto: { caseNumber: '1234567890123456' } };
/** Real first bytes per type: the browser checks a file's content against its name. */
const CONTENT: Record<string, string | Uint8Array<ArrayBuffer>> = {
  pdf: '%PDF-1.7\n',
  png: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
  txt: 'plain text',
  csv: 'a;b\n1;2\n',
  docx: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]),
  xlsx: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]),
  mov: new Uint8Array([0, 0, 0, 0x14, 0x66, 0x74, 0x79, 0x70, 0x71, 0x74]),
};

// The app's services without a server: the look-and-feel fetch never answers, so the
// views use the built-in defaults (this suite tests the views, not the API).
const api = createApiClient({ baseUrl: 'http://portal.test', companyHost: 'portal.test', fetch: () => new Promise(() => {}) });

const PROOF = { challenge: 'v1.4.0.x.y', nonce: '1', expiresAt: '2099-01-01T00:00:00Z' };

function setup(channel: ReportChannel, submit: (input: SubmitReportInput) => Promise<SubmitOutcome>, company = ONE) {
  const navigations: string[] = [];
  const copied: string[] = [];
  const logins: string[] = [];
  const machine = createReportMachine(channel).provide({
    actors: {
      loadCompanyInfo: fromPromise(async () => company),
      submitReport: fromPromise<SubmitOutcome, SubmitReportInput>(({ input }) => submit(input)),
      solveProofOfWork: fromPromise(async () => PROOF),
      // A followed case reserves its number and derives in the page first (issue 37); the
      // views only show those states, so the reservation and the derivation answer at once.
      reserveCase: fromPromise<ReserveOutcome, { proof: SubmissionProof | null }>(async () => RESERVATION),
      deriveReporterKeys: fromPromise(async () => DERIVED),
    },
    actions: {
      copyCaseNumber: (_, params: { caseNumber: string }) => void copied.push(params.caseNumber),
      goToFrontPage: () => void navigations.push('/'),
      goToLogin: (_, params: { caseNumber: string }) => {
        navigations.push('/private/status');
        logins.push(params.caseNumber);
      },
      goToErrorPage: () => void navigations.push('/something-went-wrong'),
    },
  });
  const Wrapper = ({ children }: { children: ReactNode }) => (
    <AppProviders api={api} initialLanguage="en">
      {() => (
        <I18nProvider language="en">
          <Suspense fallback={<p>loading</p>}>{children}</Suspense>
        </I18nProvider>
      )}
    </AppProviders>
  );
  render(
    <Wrapper>
      <ReportProvider machine={machine}>
        <ReportView />
      </ReportProvider>
    </Wrapper>,
  );
  return { navigations, copied, logins, user: userEvent.setup() };
}

/** A text field by its label (required ones carry an aria-hidden asterisk). */
const field = (key: string) => screen.getByLabelText(new RegExp(`^${en[key]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\*?$`));
const radio = (key: string) => screen.getByRole('radio', { name: en[key] });
const sendButton = (channel: ReportChannel = 'online') => screen.getByRole('button', { name: en[`forms.send.${channel}`] });
const terms = () => screen.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) });

async function fillOnline(user: ReturnType<typeof userEvent.setup>) {
  await user.type(field('forms.relation.label'), 'Accountant');
  await user.type(field('forms.describe.description'), 'Forged invoices.');
  await user.click(within(screen.getByRole('group', { name: new RegExp(en['forms.describe.repeated']!) })).getByRole('radio', { name: en['forms.no'] }));
  await user.click(radio('forms.related.company'));
  await user.type(field('forms.related.unit'), 'Finance');
  await user.click(radio('forms.identity.anonymous'));
  await user.click(radio('forms.follow.follow'));
  await user.type(field('forms.follow.password'), 'secret1');
  await user.type(field('forms.follow.confirm'), 'secret1');
  await user.click(terms());
}

// As a route loader would: the catalogues are there before the form renders.
beforeAll(async () => {
  await Promise.all([loadCatalogue('common', 'en'), loadCatalogue('forms', 'en')]);
});

const checked = (el: Element) => (el as HTMLInputElement).checked;
const disabled = (el: Element) => (el as HTMLButtonElement).disabled;
const value = (el: Element) => (el as HTMLInputElement).value;
const description = (el: Element) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(/\s+/)
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');


describe('online form view', { timeout: 30_000 }, () => {
  it('shows 7 steps with "n of 7", the single officer chosen, and Send only as spec §4 allows', async () => {
    const { user } = setup('online', async () => SUCCESS);
    const headings = await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    expect(headings).toHaveLength(7);
    expect(headings[0]!.textContent).toContain(msg('forms.step.counter', { n: 1, max: 7 }));
    expect(headings[6]!.textContent).toContain(en['forms.step.followReport.title']!);
    // The single officer is chosen for the reporter and shown as who receives the report.
    expect(screen.getByTestId('officer-receiver').textContent).toContain('Anne Sørensen');
    expect(screen.queryByRole('radio', { name: /Anne Sørensen/ })).toBeNull();
    expect(disabled(sendButton())).toBe(true);
    await user.click(terms());
    expect(disabled(sendButton())).toBe(false); // follow not chosen yet: Send opens the validation dialog
    await user.click(radio('forms.follow.follow'));
    expect(disabled(sendButton())).toBe(true); // following: needs the password and its confirmation
    await user.type(field('forms.follow.password'), 'abcd');
    expect(disabled(sendButton())).toBe(true);
    await user.type(field('forms.follow.confirm'), 'abcd');
    expect(disabled(sendButton())).toBe(false);
    // Policy links open in a new tab without leaking the opener.
    const policy = screen.getByRole('link', { name: en['forms.terms.policy'] });
    expect(policy.getAttribute('target')).toBe('_blank');
    expect(policy.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('validation dialog: OK moves focus to the first invalid step, whose fields show the required message', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.type(field('forms.describe.description'), 'x');
    await user.click(radio('forms.follow.notFollow'));
    await user.click(terms());
    await user.click(sendButton());
    const dialog = await screen.findByRole('alertdialog', { name: en['dialog.validation.title'] });
    expect(dialog.textContent).toContain(en['dialog.validation.text']!);
    await user.click(within(dialog).getByRole('button', { name: en['dialog.validation.ok'] }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    await waitFor(() => expect(document.activeElement?.id).toBe('step-relation-heading'));
    expect(field('forms.relation.label').getAttribute('aria-invalid')).toBe('true');
    expect(description(field('forms.relation.label'))).toEqual(expect.stringContaining(en['validation.required']!));
  });

  it('persons → company with a person typed: Back keeps it, Continue drops it', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(radio('forms.related.persons'));
    const add = screen.getByRole('button', { name: en['forms.related.add'] });
    expect(disabled(add)).toBe(true);
    await user.type(field('forms.related.name'), 'Per Hansen');
    await user.type(field('forms.related.jobTitle'), 'CFO');
    await user.type(field('forms.related.phoneOrEmail'), 'per@example.com');
    expect(disabled(add)).toBe(false);
    await user.click(add);
    expect(within(screen.getByRole('list', { name: en['forms.related.added'] })).getAllByRole('listitem')).toHaveLength(1);
    await user.click(radio('forms.related.company'));
    let dialog = await screen.findByRole('alertdialog', { name: en['dialog.discard.title'] });
    await user.click(within(dialog).getByRole('button', { name: en['dialog.discard.back'] }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(checked(radio('forms.related.persons'))).toBe(true);
    expect(screen.getByRole('list', { name: en['forms.related.added'] }).textContent).toContain('Per Hansen');
    await user.click(radio('forms.related.company'));
    dialog = await screen.findByRole('alertdialog', { name: en['dialog.discard.title'] });
    await user.click(within(dialog).getByRole('button', { name: en['dialog.discard.continue'] }));
    await waitFor(() => expect(checked(radio('forms.related.company'))).toBe(true));
    expect(screen.queryByRole('list', { name: en['forms.related.added'] })).toBeNull();
    expect(value(field('forms.related.unit'))).toBe('');
  });

  it('identity and follow: notification forces follow; anonymous and not-follow ask before dropping data', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(radio('forms.identity.reveal'));
    await user.type(field('forms.identity.name'), 'Ida Jensen');
    await user.click(screen.getByRole('checkbox', { name: en['forms.identity.notification'] }));
    expect(checked(radio('forms.follow.follow'))).toBe(true);
    expect(disabled(radio('forms.follow.notFollow'))).toBe(true);
    expect(screen.getByText(en['forms.follow.forced']!)).toBeTruthy();
    // Anonymous with a name typed: Back keeps it.
    await user.click(radio('forms.identity.anonymous'));
    let dialog = await screen.findByRole('alertdialog', { name: en['dialog.discard.title'] });
    await user.click(within(dialog).getByRole('button', { name: en['dialog.discard.back'] }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(value(field('forms.identity.name'))).toBe('Ida Jensen');
    await user.click(screen.getByRole('checkbox', { name: en['forms.identity.notification'] }));
    expect(disabled(radio('forms.follow.notFollow'))).toBe(false);
    // Not follow with a password typed: Back keeps it, Continue drops it.
    await user.type(field('forms.follow.password'), 'pw12');
    await user.click(radio('forms.follow.notFollow'));
    dialog = await screen.findByRole('alertdialog', { name: en['dialog.discard.title'] });
    await user.click(within(dialog).getByRole('button', { name: en['dialog.discard.back'] }));
    await waitFor(() => expect(value(field('forms.follow.password'))).toBe('pw12'));
    await user.click(radio('forms.follow.notFollow'));
    dialog = await screen.findByRole('alertdialog', { name: en['dialog.discard.title'] });
    await user.click(within(dialog).getByRole('button', { name: en['dialog.discard.continue'] }));
    await waitFor(() => expect(checked(radio('forms.follow.notFollow'))).toBe(true));
    expect(screen.queryByLabelText(/^Password/)).toBeNull();
    // Anonymous with data: Continue clears the identity.
    await user.click(radio('forms.identity.anonymous'));
    dialog = await screen.findByRole('alertdialog', { name: en['dialog.discard.title'] });
    await user.click(within(dialog).getByRole('button', { name: en['dialog.discard.continue'] }));
    await waitFor(() => expect(checked(radio('forms.identity.anonymous'))).toBe(true));
    await user.click(radio('forms.identity.reveal'));
    expect(value(field('forms.identity.name'))).toBe('');
  });

  it('documents: dropped files keep five allowed ones with a notice; the picker adds files; remove works', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    expect(screen.getByText(msg('forms.documents.rules', { max: 5, types: ALLOWED_EXTENSIONS.join(', ') }))).toBeTruthy();
    const f = (name: string, type: string) => new File([CONTENT[name.split('.').pop()!] ?? 'x'.repeat(10)], name, { type });
    const zone = screen.getByText(en['forms.documents.drop']!).parentElement!;
    fireEvent.drop(zone, {
      dataTransfer: {
        files: [f('a.pdf', 'application/pdf'), f('evil.exe', 'application/x-msdownload'), f('b.png', 'image/png'), f('c.txt', 'text/plain'), f('d.docx', ''), f('e.csv', 'text/csv'), f('f.mov', 'video/quicktime')],
      },
    });
    const list = await screen.findByRole('list', { name: msg('forms.documents.list', { count: 5, max: 5 }) });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(
      ['a.pdf', 'b.png', 'c.txt', 'd.docx', 'e.csv'].map((n) => expect.stringContaining(n)),
    );
    // Each file not added is named with its reason (issue 42).
    const notAdded = within(screen.getByRole('status')).getByRole('list', { name: en['forms.documents.rejected.list'] });
    expect(within(notAdded).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'evil.exe: not added, because files of this type are not allowed.',
      'f.mov: not added, because at most 5 files can be attached.',
    ]);
    const choose = screen.getByRole('button', { name: en['forms.documents.choose'] });
    expect(disabled(choose)).toBe(true); // five already
    await user.click(screen.getByRole('button', { name: msg('forms.documents.remove', { name: 'a.pdf' }) }));
    expect(disabled(choose)).toBe(false);
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
    await user.upload(input, f('g.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'));
    expect(within(screen.getByRole('list', { name: msg('forms.documents.list', { count: 5, max: 5 }) })).getByText(/g\.xlsx/)).toBeTruthy();
  });

  it('a file whose content does not fit its type is named at once and not added; the others are', async () => {
    setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    const zone = screen.getByText(en['forms.documents.drop']!).parentElement!;
    fireEvent.drop(zone, {
      dataTransfer: {
        files: [
          new File([CONTENT.pdf!], 'contract.pdf', { type: 'application/pdf' }),
          new File([CONTENT.png!], 'renamed-photo.pdf', { type: 'application/pdf' }),
        ],
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(msg('forms.documents.refused', { names: 'renamed-photo.pdf' }));
    const list = screen.getByRole('list', { name: msg('forms.documents.list', { count: 1, max: 5 }) });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual([expect.stringContaining('contract.pdf')]);
  });

  it('a file the server still refuses is named in the failure dialog; the rest of the report stays', async () => {
    const { user } = setup('online', async (input) => ({ refusedFile: { index: 0, name: input.submission.files[0]!.name } }));
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.upload(document.querySelector<HTMLInputElement>('input[type="file"]')!, new File([CONTENT.pdf!], 'proof.pdf', { type: 'application/pdf' }));
    await screen.findByRole('list', { name: msg('forms.documents.list', { count: 1, max: 5 }) });
    await fillOnline(user);
    await user.click(sendButton());
    const dialog = await screen.findByRole('alertdialog', { name: en['dialog.failure.title'] });
    expect(dialog.textContent).toContain(msg('forms.failure.fileRefused', { name: 'proof.pdf' }));
    await user.click(within(dialog).getByRole('button', { name: en['dialog.failure.close'] }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(screen.queryByRole('list', { name: /Attached files/ })).toBeNull();
    expect(value(field('forms.relation.label'))).toBe('Accountant');
    expect(value(field('forms.follow.password'))).toBe('secret1');
  });

  it('"Add person" is enabled once a name is typed and names the fields still needed', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(radio('forms.related.persons'));
    const add = screen.getByRole('button', { name: en['forms.related.add'] });
    expect(disabled(add)).toBe(true);
    await user.type(field('forms.related.name'), 'Per Hansen');
    expect(disabled(add)).toBe(false);
    await user.click(add);
    const fields = [en['forms.related.jobTitle'], en['forms.related.phoneOrEmail']].join(', ');
    expect(screen.getByRole('alert').textContent).toBe(msg('forms.related.missing', { fields }));
    expect(field('forms.related.jobTitle').getAttribute('aria-invalid')).toBe('true');
  });

  it('Send is never a silent grey button: what it still needs stands next to it', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    const needs = (...keys: string[]) => msg('forms.send.needs', { steps: keys.map((k) => en[`forms.send.needs.${k}`]).join(', ') });
    expect(disabled(sendButton())).toBe(true);
    expect(description(sendButton())).toBe(needs('terms'));
    await user.click(radio('forms.follow.follow'));
    expect(description(sendButton())).toBe(needs('terms', 'password'));
    await user.click(terms());
    await user.type(field('forms.follow.password'), 'abcd');
    expect(description(sendButton())).toBe(needs('confirm'));
    await user.type(field('forms.follow.confirm'), 'abcd');
    expect(disabled(sendButton())).toBe(false);
    expect(sendButton().getAttribute('aria-describedby')).toBeNull();
  });

  it('the description counter warns before the limit, is an error at it, and says where more detail goes', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    const box = field('forms.describe.description');
    await user.type(box, 'x'.repeat(100));
    expect(description(box)).toBe(msg('forms.describe.counter', { count: 100, max: 200 }));
    await user.type(box, 'x'.repeat(70));
    expect(description(box)).toBe(msg('forms.describe.counterNear', { count: 170, max: 200 }));
    fireEvent.change(box, { target: { value: 'x'.repeat(200) } });
    expect(description(box)).toContain(msg('forms.describe.counterFull', { count: 200, max: 200 }));
  });

  it('password fields can be shown and hidden', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(radio('forms.follow.follow'));
    const password = field('forms.follow.password') as HTMLInputElement;
    expect(password.type).toBe('password');
    const [show] = screen.getAllByRole('button', { name: en['forms.password.show'] });
    await user.click(show!);
    expect(password.type).toBe('text');
    expect(show!.getAttribute('aria-pressed')).toBe('true');
    await user.click(screen.getAllByRole('button', { name: en['forms.password.hide'] })[0]!);
    expect(password.type).toBe('password');
  });

  it('identity phone: the error shows on leaving the field, not while typing', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(radio('forms.identity.reveal'));
    const phone = screen.getByLabelText(en['forms.identity.phone']!);
    await user.clear(phone);
    // A Danish number one digit short: invalid (spec §5), but the reporter is still typing.
    await user.type(phone, '+451234567');
    expect(phone.getAttribute('aria-invalid')).not.toBe('true');
    await user.tab();
    await waitFor(() => expect(phone.getAttribute('aria-invalid')).toBe('true'));
  });

  it('sending shows per-file progress; success shows the grouped case number, copies it with a 2 s hint, and closing resets', async () => {
    let release!: (x: SuccessData | null) => void;
    let sent: SubmitReportInput | undefined;
    const { user, copied, navigations } = setup('online', (input) => {
      sent = input;
      return new Promise((r) => (release = r));
    });
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    const file = new File(['%PDF-1.7\n' + 'y'.repeat(991)], 'proof.pdf', { type: 'application/pdf' });
    await user.upload(document.querySelector<HTMLInputElement>('input[type="file"]')!, file);
    await fillOnline(user);
    await user.click(sendButton());
    await screen.findByRole('status', { name: '' }).catch(() => null);
    expect(screen.getByText(en['forms.sending']!)).toBeTruthy();
    act(() => sent!.reportProgress({ type: 'upload.progress', index: 0, loaded: 400, total: 1000 }));
    const bar = await screen.findByRole('progressbar', { name: msg('upload.progress', { name: 'proof.pdf' }) });
    expect(bar.getAttribute('value')).toBe('400');
    // The speed and time left the upload effect measured, in the reader's words; then a lost connection.
    act(() => sent!.reportProgress({ type: 'upload.progress', index: 0, loaded: 500, total: 1000, bytesPerSecond: 2_500_000, secondsLeft: 125 }));
    expect(await screen.findByText(msg('upload.rate', { speed: '2.5 MB', time: '3 minutes' }))).toBeTruthy();
    // A crawl under 1 kB/s reads in bytes, from the form's own catalogue.
    act(() => sent!.reportProgress({ type: 'upload.progress', index: 0, loaded: 500, total: 1000, bytesPerSecond: 500, secondsLeft: 1 }));
    expect(await screen.findByText(msg('upload.rate', { speed: '500 bytes', time: '1 second' }))).toBeTruthy();
    act(() => sent!.reportProgress({ type: 'upload.progress', index: 0, loaded: 500, total: 1000, bytesPerSecond: null, secondsLeft: null, retrying: true }));
    expect((await screen.findByText(en['upload.stalled']!)).getAttribute('role')).toBe('status');
    expect(screen.queryByText(/ left$/)).toBeNull();
    await act(async () => release(SUCCESS));
    const dialog = await screen.findByRole('dialog', { name: en['forms.success.online.title'] });
    expect(within(dialog).getByText('1234 5678 9012 3456')).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: en['forms.success.copy'] }));
    expect(copied).toEqual(['1234567890123456']);
    expect(within(dialog).getByRole('status').textContent).toContain(en['forms.success.copied']!);
    await waitFor(() => expect(within(dialog).getByRole('status').textContent).toBe(''), { timeout: 3000 });
    expect(within(dialog).getByRole('list').textContent).toContain(en['forms.success.step1']!);
    await user.click(within(dialog).getByRole('button', { name: en['forms.success.close'] }));
    // One tap does not lose the case number: closing asks first, and "back" keeps it.
    const ask = await screen.findByRole('alertdialog', { name: en['forms.success.closeConfirm.title'] });
    expect(ask.textContent).toContain(en['forms.success.closeConfirm.follow']!);
    expect(navigations).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: en['forms.success.closeConfirm.back'] }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(within(screen.getByRole('dialog', { name: en['forms.success.online.title'] })).getByText('1234 5678 9012 3456')).toBeTruthy();
    await user.keyboard('{Escape}');
    const again = await screen.findByRole('alertdialog', { name: en['forms.success.closeConfirm.title'] });
    await user.click(within(again).getByRole('button', { name: en['forms.success.closeConfirm.close'] }));
    expect(navigations).toEqual(['/']);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(value(field('forms.relation.label'))).toBe('');
  });

  it('offline at Send: "you seem to be offline, your report is kept", not "complete the form"', async () => {
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    try {
      const { user } = setup('online', async () => ({ networkFailure: true }));
      await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
      await fillOnline(user);
      await user.click(sendButton());
      const dialog = await screen.findByRole('alertdialog', { name: en['forms.failure.offline.title'] });
      expect(dialog.textContent).toContain(en['forms.failure.offline.text']!);
      expect(dialog.textContent).not.toContain(common['dialog.failure.text']!);
      await user.click(within(dialog).getByRole('button', { name: en['dialog.failure.close'] }));
      await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
      expect(value(field('forms.relation.label'))).toBe('Accountant');
    } finally {
      onLine.mockRestore();
    }
  });

  it('no answer while the browser is online: "did not reach us, your report is kept", not "complete the form"', async () => {
    const { user } = setup('online', async () => ({ networkFailure: true }));
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await fillOnline(user);
    await user.click(sendButton());
    const dialog = await screen.findByRole('alertdialog', { name: en['dialog.failure.title'] });
    expect(dialog.textContent).toContain(en['forms.failure.unreachable.text']!);
    expect(dialog.textContent).not.toContain(common['dialog.failure.text']!);
  });

  it('while sending, the progress of all files stands beside Send (the status, one bar, speed and time left)', async () => {
    let sent: SubmitReportInput | undefined;
    const { user } = setup('online', (input) => {
      sent = input;
      return new Promise(() => {});
    });
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    const files = [new File(['%PDF-1.7\n' + 'y'.repeat(991)], 'a.pdf', { type: 'application/pdf' }), new File(['%PDF-1.7\n' + 'z'.repeat(991)], 'b.pdf', { type: 'application/pdf' })];
    await user.upload(document.querySelector<HTMLInputElement>('input[type="file"]')!, files);
    await fillOnline(user);
    await user.click(sendButton());
    act(() => sent!.reportProgress({ type: 'upload.progress', index: 0, loaded: 1000, total: 1000 }));
    act(() => sent!.reportProgress({ type: 'upload.progress', index: 1, loaded: 500, total: 1000, bytesPerSecond: 10, secondsLeft: 50 }));
    // In the Send row (the followReport step), not only in the documents step far above.
    const row = sendButton().parentElement!;
    const status = within(row).getByTestId('sending-status');
    expect(within(status).getByRole('status').textContent).toBe(en['forms.sending']);
    const bar = within(status).getByRole('progressbar', { name: en['forms.sending'] });
    expect(bar.getAttribute('value')).toBe('1500');
    expect(bar.getAttribute('max')).toBe('2000');
    expect(status.textContent).toContain(msg('forms.sending.progress', { percent: 75 }));
    expect(status.textContent).toContain(msg('upload.rate', { speed: '10 bytes', time: '50 seconds' }));
  });

  it('identity phone: digits typed into the emptied field are read in the selected country; an impossible number is an error', async () => {
    const { user } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await user.click(radio('forms.identity.reveal'));
    const phone = await screen.findByLabelText(en['forms.identity.phone']!);
    await waitFor(() => expect(value(phone)).toMatch(/^\+44/));
    await user.clear(phone);
    await user.type(phone, '7700900123');
    // Not "+77 00900123" (Kazakhstan): the selected country's code stays.
    expect(value(phone).replace(/\D/g, '')).toBe('447700900123');
    await user.tab();
    expect(phone.getAttribute('aria-invalid')).not.toBe('true');
    // Too few digits for that country: the input says invalid, and so does the form.
    await user.clear(phone);
    await user.type(phone, '77009');
    await user.tab();
    await waitFor(() => expect(phone.getAttribute('aria-invalid')).toBe('true'));
    expect(description(phone)).toContain(common['validation.phone']!);
  });

  it('a failed send shows the failure dialog and keeps every field', async () => {
    const { user } = setup('online', async () => null);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await fillOnline(user);
    await user.click(sendButton());
    const dialog = await screen.findByRole('alertdialog', { name: en['dialog.failure.title'] });
    expect(dialog.textContent).toContain('The report could not be sent. Complete the form and try again.');
    await user.click(within(dialog).getByRole('button', { name: en['dialog.failure.close'] }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(value(field('forms.relation.label'))).toBe('Accountant');
    expect(value(field('forms.related.unit'))).toBe('Finance');
    expect(value(field('forms.follow.password'))).toBe('secret1');
    expect(checked(terms())).toBe(true);
  });

  it('too many submissions (429): says how long to wait and keeps every field', async () => {
    let seen: SubmitReportInput | undefined;
    const { user } = setup('online', async (input) => {
      seen = input;
      return { rateLimited: { retryAfterSeconds: 1500 } };
    });
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await fillOnline(user);
    await user.click(sendButton());
    const dialog = await screen.findByRole('alertdialog', { name: en['forms.rateLimited.title'] });
    expect(dialog.textContent).toContain('Too many reports have been sent from your connection');
    expect(dialog.textContent).toContain('try again in 25 minutes');
    // The proof worked out while typing paid for the case number's reservation (issue 37);
    // the submission names that reservation and sends the verifier, never the password.
    expect(seen!.proof).toBeNull();
    expect(seen!.submission.channel === 'online' && seen!.submission.dto.caseAccount).toEqual({ follow: true, reservation: RESERVATION.reservation, verifier: DERIVED.verifier, kdf: DERIVED.kdf });
    await user.click(within(dialog).getByRole('button', { name: en['forms.rateLimited.close'] }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(value(field('forms.relation.label'))).toBe('Accountant');
    expect(value(field('forms.related.unit'))).toBe('Finance');
    expect(value(field('forms.follow.password'))).toBe('secret1');
    expect(checked(terms())).toBe(true);
  });

  it('not following: success shows the not-followed notice and a front-page button', async () => {
    const { user, navigations } = setup('online', async () => SUCCESS);
    await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    await fillOnline(user);
    await user.click(radio('forms.follow.notFollow'));
    const confirm = await screen.findByRole('alertdialog', { name: en['dialog.discard.title'] });
    await user.click(within(confirm).getByRole('button', { name: en['dialog.discard.continue'] }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    await user.click(sendButton());
    const dialog = await screen.findByRole('dialog', { name: en['forms.success.online.title'] });
    expect(dialog.textContent).toContain(en['forms.success.notFollowed']!);
    expect(within(dialog).queryByRole('button', { name: en['forms.success.copy'] })).toBeNull();
    // The case number is shown anyway: harmless without a password, and quotable on the phone.
    expect(dialog.textContent).toContain(en['forms.success.notFollowedNumber']!);
    expect(within(dialog).getByText('1234 5678 9012 3456')).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: en['forms.success.frontPage'] }));
    const ask = await screen.findByRole('alertdialog', { name: en['forms.success.closeConfirm.title'] });
    expect(ask.textContent).toContain(en['forms.success.closeConfirm.notFollowed']!);
    await user.click(within(ask).getByRole('button', { name: en['forms.success.closeConfirm.close'] }));
    expect(navigations).toEqual(['/']);
  });
});

describe('phone field', () => {
  it('starts with the display language\'s country (spec §5), not the company\'s default language\'s', () => {
    const danish = { defaultLanguage: 'da', phoneCodes: { da: 'DK', en: 'GB', pl: 'PL' } };
    expect(companyPhoneCountry(danish, 'da')).toBe('dk');
    expect(companyPhoneCountry(danish, 'en')).toBe('gb');
    expect(companyPhoneCountry(danish, 'pl')).toBe('pl');
    // The Norwegian group (default language English): Norwegian is +47, not +44.
    const group = { defaultLanguage: 'en', phoneCodes: { da: 'DK', no: 'NO', se: 'SE', en: 'GB', es: 'ES', pl: 'PL', de: 'DE' } };
    expect(companyPhoneCountry(group, 'no')).toBe('no');
    expect(companyPhoneCountry(group, 'de')).toBe('de');
    expect(companyPhoneCountry({ defaultLanguage: 'se', phoneCodes: { se: 'SE' } }, 'en')).toBe('gb');
    // Without company settings: the display language's country (spec §5).
    expect(companyPhoneCountry(null, 'en')).toBe('gb');
  });
});

describe('oral report and book meeting views', { timeout: 30_000 }, () => {
  it('oral: 5 steps with subsidiaries, follow fixed, phone icon on Send, log-in button after success', async () => {
    const company: CompanyInfo = { ...ONE, subsidiaries: [{ id: 's1', name: 'Nord AS' }] };
    const { user, navigations, logins } = setup('oral', async () => SUCCESS, company);
    const headings = await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    expect(headings).toHaveLength(5);
    expect(headings[0]!.textContent).toContain(msg('forms.step.counter', { n: 1, max: 5 }));
    expect(screen.queryByRole('radio', { name: en['forms.follow.notFollow'] })).toBeNull();
    expect(screen.getByText(en['forms.follow.fixed']!)).toBeTruthy();
    expect(sendButton('oral').querySelector('svg')).not.toBeNull();
    await user.selectOptions(screen.getByLabelText(en['forms.subsidiary.label']!), 's1');
    await user.type(field('forms.relation.label'), 'Driver');
    await user.click(radio('forms.identity.anonymous'));
    await user.type(field('forms.follow.password'), 'road');
    await user.type(field('forms.follow.confirm'), 'road');
    await user.click(terms());
    await user.click(sendButton('oral'));
    const dialog = await screen.findByRole('dialog', { name: en['forms.success.oral.title'] });
    // Tap to call: grouped for the eye, compact for the dialler, with how to hide one's own number.
    const call = within(dialog).getByRole('link', { name: msg('forms.success.call', { name: 'Anne Sørensen', phone: '+45 70 20 30 40' }) });
    expect(call.getAttribute('href')).toBe('tel:+4570203040');
    expect(dialog.textContent).toContain(common['phone.hideNumber']!);
    await user.click(within(dialog).getByRole('button', { name: en['forms.success.login'] }));
    expect(navigations).toEqual(['/private/status']);
    // The sign-in gets the number just shown (docs/decisions/signin-handover.md).
    expect(logins).toEqual([SUCCESS.caseDto.caseNumber]);
  });

  it('meeting: 4 steps without subsidiaries and the meeting variant of Send', async () => {
    setup('meeting', async () => SUCCESS);
    const headings = await screen.findAllByRole('heading', { level: 2 }, { timeout: 10_000 });
    expect(headings).toHaveLength(4);
    expect(headings[3]!.textContent).toContain(msg('forms.step.counter', { n: 4, max: 4 }));
    expect(disabled(sendButton('meeting'))).toBe(true);
  });
});
