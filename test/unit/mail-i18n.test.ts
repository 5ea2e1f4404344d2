/** The mail catalogues (server/mail/i18n): complete in all seven languages, and the reporter's mail cannot carry case content. */
import { describe, expect, it } from 'vitest';
import { IntlMessageFormat } from 'intl-messageformat';
import { LANGUAGES } from '../../machines/schema.ts';
import { MAIL_CATALOGUES, reporterNewsMail, handlerCaseMail, deadlineMail, portalUrl, enrolmentMail } from '../../server/mail/messages.ts';

type MessageFormatElement = ReturnType<IntlMessageFormat['getAst']>[number];
// The ICU AST's element type of a plain argument (@formatjs/icu-messageformat-parser TYPE.argument).
const ARGUMENT = 1;
const parse = (message: string) => new IntlMessageFormat(message, 'en').getAst();

function args(els: MessageFormatElement[], out = new Set<string>()): Set<string> {
  for (const e of els) if (e.type === ARGUMENT) out.add((e as { value: string }).value);
  return out;
}

describe('mail catalogues', () => {
  const en = MAIL_CATALOGUES.en;
  it.each(LANGUAGES)('%s has the same keys and placeholders as en, and differs from it', (lang) => {
    const cat = MAIL_CATALOGUES[lang];
    expect(Object.keys(cat).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en)) expect([...args(parse(cat[key]!))].sort(), `${lang} ${key}`).toEqual([...args(parse(en[key]!))].sort());
    if (lang !== 'en') expect(cat['reporter.news.subject']).not.toBe(en['reporter.news.subject']);
  });

  it('the reporter texts have no place for a case number, a status or a text', () => {
    for (const lang of LANGUAGES) {
      const cat = MAIL_CATALOGUES[lang];
      for (const key of ['reporter.news.subject', 'reporter.news.body', 'footer']) {
        expect([...args(parse(cat[key]!))].every((a) => a === 'company' || a === 'portal'), `${lang} ${key}`).toBe(true);
      }
      const mail = reporterNewsMail(lang, 'r@example.org', { name: 'Acme', defaultLanguage: 'da', hosts: ['acme.example'] }, 'https://acme.example');
      expect(mail.text).toContain('Acme');
      expect(mail.text).toContain('https://acme.example');
    }
  });

  it('handler mails name no case, only what happened, a deadline date and the workspace', () => {
    const m = handlerCaseMail('newCase', 'en', 'h@example.org', 'https://p');
    expect(m.subject).toBe('A new case is waiting');
    expect(m.text).toContain('https://p/handler/cases');
    const d = deadlineMail('passed', 'feedback', 'en', 'h@example.org', new Date('2027-02-08T10:00:00Z'), 'https://p');
    expect(d.subject).toBe('A deadline passed on 2027-02-08');
    expect(d.text).toContain('feedback to the reporter');
    expect(d.text).toContain('https://p/handler/cases');
  });

  it('the handler texts have no place for a case number', () => {
    for (const lang of LANGUAGES) {
      const cat = MAIL_CATALOGUES[lang];
      for (const key of Object.keys(cat).filter((k) => k.startsWith('handler.'))) {
        expect([...args(parse(cat[key]!))].every((a) => ['workspace', 'portal', 'date', 'deadline'].includes(a)), `${lang} ${key}`).toBe(true);
      }
    }
  });

  it('the enrolment mail holds the person, the company and the link, nothing of a case (issue 39)', () => {
    for (const lang of LANGUAGES) {
      const cat = MAIL_CATALOGUES[lang];
      for (const key of ['account.enrolment.subject', 'account.enrolment.body']) {
        expect([...args(parse(cat[key]!))].every((a) => ['name', 'company', 'link'].includes(a)), `${lang} ${key}`).toBe(true);
      }
      const mail = enrolmentMail(lang, 'h@example.org', 'Hans', 'Acme', 'https://acme.example/handler/enrol#code', 'https://acme.example');
      expect(mail.text).toContain('https://acme.example/handler/enrol#code');
      expect(mail.subject).toContain('Acme');
    }
  });

  it('the portal address comes from PUBLIC_URL or the company host', () => {
    expect(portalUrl({ port: 9000 }, { hosts: ['whistle.example.com'] })).toBe('https://whistle.example.com');
    expect(portalUrl({ port: 9000 }, { hosts: ['localhost'] })).toBe('http://localhost:9000');
    expect(portalUrl({ port: 9000, publicUrl: 'https://whistle.example.com/' }, { hosts: ['whistle.example.com', 'b.example.com'] })).toBe('https://whistle.example.com');
    expect(portalUrl({ port: 9000, publicUrl: 'http://proxy.example:8080' }, { hosts: ['b.example.com'] })).toBe('http://b.example.com:8080');
  });
});

describe('SMTP_URL', () => {
  it('is refused unless smtp:// or smtps://, without repeating it', async () => {
    const { createMailer } = await import('../../server/mail/transport.ts');
    expect(createMailer({ mailFrom: 'a@b.c' }).enabled).toBe(false);
    expect(createMailer({ smtpUrl: 'smtps://u:p@mail.example:465', mailFrom: 'a@b.c' }).enabled).toBe(true);
    for (const bad of ['http://u:secret@mail.example', 'mail.example:25', 'smtp//x']) {
      expect(() => createMailer({ smtpUrl: bad, mailFrom: 'a@b.c' })).toThrow(/^SMTP_URL must look like/);
      try {
        createMailer({ smtpUrl: bad, mailFrom: 'a@b.c' });
      } catch (err) {
        expect((err as Error).message).not.toContain('secret');
      }
    }
  });
});
