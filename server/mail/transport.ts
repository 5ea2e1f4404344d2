/**
 * SMTP through nodemailer (SMTP_URL, MAIL_FROM). Mails are plain text only: no
 * HTML, so no image, no tracking pixel and no link other than the portal address
 * written out in the text (docs/decisions/mail-and-retention.md).
 */
import type { Transporter } from 'nodemailer';
import type { ServerConfig } from '../config.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** False without SMTP_URL: nothing is queued and nothing is sent. */
  readonly enabled: boolean;
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** What a failed send may leave in the log: the SMTP code and response class, never an address. */
export function describeSmtpError(err: unknown): string {
  const e = err as { code?: string; responseCode?: number; command?: string };
  return [e.code, e.responseCode, e.command].filter(Boolean).join(' ') || 'send failed';
}

export function createMailer(config: Pick<ServerConfig, 'smtpUrl' | 'mailFrom'>): Mailer {
  if (!config.smtpUrl) {
    return {
      enabled: false,
      send: async () => {
        throw new Error('mail is not configured (SMTP_URL)');
      },
      close: () => {},
    };
  }
  let protocol = '';
  try {
    protocol = new URL(config.smtpUrl).protocol;
  } catch {
    // reported below, without echoing the URL (it may hold a password)
  }
  if (protocol !== 'smtp:' && protocol !== 'smtps:') throw new Error('SMTP_URL must look like smtp://user:pass@host:587 or smtps://user:pass@host:465');
  // nodemailer is loaded with the first mail, not at start: a portal without mail, or
  // between mails, keeps it out of memory (idle memory, performance.md).
  let transport: Promise<Transporter> | undefined;
  const transportOf = (): Promise<Transporter> =>
    (transport ??= import('nodemailer').then(
      ({ createTransport }) =>
        createTransport({
          url: config.smtpUrl,
          // An unreachable server must not hold the worker for minutes: the mail waits in
          // the outbox and is tried again with back-off.
          connectionTimeout: 15_000,
          greetingTimeout: 15_000,
          socketTimeout: 30_000,
          // Never log message contents or addresses.
          logger: false,
          debug: false,
        }),
      (err: unknown) => {
        transport = undefined;
        throw err;
      },
    ));
  return {
    enabled: true,
    async send(mail) {
      await (await transportOf()).sendMail({
        from: config.mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        // RFC 3834: an automatic notice; well-behaved mailers send no auto-reply to it.
        headers: { 'Auto-Submitted': 'auto-generated' },
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    close: () => void transport?.then((t) => t.close(), () => undefined),
  };
}
