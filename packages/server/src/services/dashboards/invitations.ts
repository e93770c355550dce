import type { StudioConfig } from '../../config';
import { smtpTransport } from '../mail';
import type { PublicationInfo } from './publications';

export interface Invitation {
  email: string;
  /** The report's address for this reader. */
  url: string;
  /** Mailed through SMTP_URL; false when no SMTP server is configured (the inviter passes the link on). */
  sent: boolean;
}

/** Where a reader opens a report (the web app's public report page). */
export const reportUrl = (config: Pick<StudioConfig, 'publicUrl'>, reportId: string) => `${config.publicUrl.replace(/\/$/, '')}/public/report/${reportId}`;

/**
 * Mails each invited reader the report's link through SMTP_URL, one message each (addresses are not
 * shown to one another). Without SMTP the links are answered to the inviter instead: nothing is
 * pretended to have been sent.
 */
export async function sendInvitations(
  config: Pick<StudioConfig, 'publicUrl' | 'smtpUrl' | 'smtpFrom'>,
  opts: { report: PublicationInfo; emails: string[]; description: string; from: { name: string; email: string } },
): Promise<Invitation[]> {
  const url = reportUrl(config, opts.report.id);
  if (!config.smtpUrl) return opts.emails.map((email) => ({ email, url, sent: false }));
  const transport = await smtpTransport(config.smtpUrl);
  try {
    const text = [
      `${opts.from.name || opts.from.email} shared the report "${opts.report.name}" with you.`,
      opts.description,
      `Open it: ${url}`,
      opts.report.passwordProtected ? 'It is protected by a password; ask the sender for it.' : '',
    ].filter(Boolean).join('\n\n');
    const out: Invitation[] = [];
    for (const email of opts.emails) {
      // The studio's own address sends (mail servers refuse a sender domain they do not serve); answers go to the inviter.
      const from = config.smtpFrom ? { name: `${opts.from.name || opts.from.email} via Studio`, address: config.smtpFrom } : opts.from.email;
      await transport.sendMail({ from, replyTo: opts.from.email, to: email, subject: `Report: ${opts.report.name}`, text });
      out.push({ email, url, sent: true });
    }
    return out;
  } finally {
    transport.close();
  }
}
