/**
 * The texts of every mail (server/mail/i18n/*.json: ICU messages, identical keys
 * in all seven languages) and what may go into them. A reporter's mail says only
 * that there is news, with the company's name and the portal's address: never the
 * case number, a status, a message or any report text, because the mailbox may be
 * read by the person reported on. A handler's mail names no case at all (issue 36,
 * finding 5): the case number is the reporter's sign-in name, and with a short
 * password most of the login, so it must not travel through a mail system. It says
 * what happened (and a deadline's date) and links to the workspace, where the handler
 * signs in and sees which case it is.
 */
import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { LANGUAGES, type Language } from '../../machines/schema.ts';
import type { ServerConfig } from '../config.ts';
import type { OutgoingMail } from './transport.ts';

type Catalogue = Record<string, string>;

export const MAIL_CATALOGUES: Record<Language, Catalogue> = Object.fromEntries(
  LANGUAGES.map((l) => [l, JSON.parse(readFileSync(new URL(`./i18n/${l}.json`, import.meta.url), 'utf8')) as Catalogue]),
) as Record<Language, Catalogue>;

/** `se` is the spec's Swedish and `no` Norwegian; Intl wants sv and nb. */
const LOCALE: Record<Language, string> = { da: 'da', no: 'nb', se: 'sv', en: 'en', es: 'es', pl: 'pl', de: 'de' };

export function asLanguage(value: string | null | undefined, fallback: Language): Language {
  return (LANGUAGES as readonly string[]).includes(value ?? '') ? (value as Language) : fallback;
}

function t(lang: Language, key: string, values: Record<string, string> = {}): string {
  const msg = MAIL_CATALOGUES[lang][key] ?? MAIL_CATALOGUES.en[key];
  if (msg === undefined) throw new Error(`no mail text ${key}`);
  return String(new IntlMessageFormat(msg, LOCALE[lang]).format(values));
}

function withFooter(lang: Language, body: string, portal: string): string {
  return `${body}\n\n-- \n${t(lang, 'footer', { portal })}\n`;
}

/** The company as the mails need it: its name and host names (the company file). */
export interface MailCompany {
  name: string;
  defaultLanguage: string;
  hosts: readonly string[];
}

/**
 * The portal's address for a company: PUBLIC_URL when it is one of the company's
 * hosts; otherwise the company's first host, with PUBLIC_URL's scheme and port
 * when set, else https (http and the server's port for *.localhost, the demo).
 */
export function portalUrl(config: Pick<ServerConfig, 'publicUrl' | 'port'>, company: Pick<MailCompany, 'hosts'>): string {
  const host = company.hosts[0] ?? 'localhost';
  if (config.publicUrl) {
    const u = new URL(config.publicUrl);
    if (company.hosts.includes(u.hostname)) return u.origin;
    return `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}`;
  }
  const local = host === 'localhost' || host.endsWith('.localhost');
  return local ? `http://${host}:${config.port}` : `https://${host}`;
}

/** "There is news in your case", in the reporter's language. */
export function reporterNewsMail(lang: Language, to: string, company: MailCompany, portal: string): OutgoingMail {
  return {
    to,
    subject: t(lang, 'reporter.news.subject'),
    text: withFooter(lang, t(lang, 'reporter.news.body', { company: company.name, portal }), portal),
  };
}

export type HandlerMailKind = 'newCase' | 'newMessage';

/** Where a handler's mail sends them: the workspace's inbox (signed out, its sign-in). */
export function workspaceUrl(portal: string): string {
  return `${portal}/handler/cases`;
}

export function handlerCaseMail(kind: HandlerMailKind, lang: Language, to: string, portal: string): OutgoingMail {
  const values = { workspace: workspaceUrl(portal), portal };
  return { to, subject: t(lang, `handler.${kind}.subject`, values), text: withFooter(lang, t(lang, `handler.${kind}.body`, values), portal) };
}

export type Deadline = 'acknowledgement' | 'feedback';
export type DeadlineStage = 'soon' | 'passed';

/** Deadlines are written as calendar dates (UTC), the same in every language. */
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function deadlineMail(stage: DeadlineStage, deadline: Deadline, lang: Language, to: string, due: Date, portal: string): OutgoingMail {
  const values = { date: isoDate(due), deadline: t(lang, `handler.deadline.${deadline}`), workspace: workspaceUrl(portal), portal };
  return {
    to,
    subject: t(lang, `handler.deadline.${stage}.subject`, values),
    text: withFooter(lang, t(lang, `handler.deadline.${stage}.body`, values), portal),
  };
}

/** The enrolment link for a new or reset account (issue 39): the link is the only way in, so it goes to the account's own address only. */
export function enrolmentMail(lang: Language, to: string, name: string, company: string, link: string, portal: string): OutgoingMail {
  const values = { name, company, link };
  return { to, subject: t(lang, 'account.enrolment.subject', values), text: withFooter(lang, t(lang, 'account.enrolment.body', values), portal) };
}
