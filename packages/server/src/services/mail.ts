import { onFirstUse } from '@studio/schema';
import type { StudioConfig } from '../config';

export type MailConfig = Pick<StudioConfig, 'publicUrl' | 'smtpUrl' | 'smtpFrom'>;

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** The studio's own sender: SMTP_FROM, or no-reply at the public address's host. */
export const studioSender = (config: MailConfig) => config.smtpFrom ?? `Studio <no-reply@${new URL(config.publicUrl).hostname}>`;

/** nodemailer, loaded with the first mail a studio sends (most run without SMTP). */
const nodemailer = onFirstUse(async () => (await import('nodemailer')).default);

/** A transport to the SMTP server at `smtpUrl`; the caller closes it. */
export async function smtpTransport(smtpUrl: string) {
  return (await nodemailer()).createTransport(smtpUrl);
}

/**
 * Sends each message through SMTP_URL, one connection for all of them, and answers whether anything was sent:
 * false when no SMTP server is configured (the caller then hands the link over itself; nothing is pretended sent).
 */
export async function sendMail(config: MailConfig, mails: Mail[]): Promise<boolean> {
  if (!config.smtpUrl) return false;
  const transport = await smtpTransport(config.smtpUrl);
  try {
    for (const mail of mails) await transport.sendMail({ from: studioSender(config), ...mail });
    return true;
  } finally {
    transport.close();
  }
}
