import { afterAll, beforeAll } from 'vitest';
import { SMTPServer } from 'smtp-server';

/** One message as the catcher received it: envelope addresses and the raw text (headers and body). */
export interface CaughtMail {
  to: string[];
  from: string;
  raw: string;
}

/**
 * A real SMTP server on a loopback port that keeps what it receives: the studio's mail (report invitations,
 * password reset links) goes through nodemailer to it exactly as to a production relay.
 */
export async function startMailCatcher(): Promise<{ url: string; received: CaughtMail[]; close: () => Promise<void> }> {
  const received: CaughtMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', raw });
        done();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  const port = (smtp.server.address() as { port: number }).port;
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => smtp.close(() => r())) };
}

/** The body text of a caught message with quoted-printable's soft line breaks ("=" at a line's end) joined. */
export const bodyOf = (mail: CaughtMail) => mail.raw.replaceAll('=\r\n', '').replaceAll('=3D', '=');

/**
 * A mail catcher for one describe block, started before its tests and closed after, and a switch that points the
 * studio's SMTP_URL at it for one case (`withSmtp`), restoring "no SMTP" after.
 */
export function useMailCatcher(config: () => { smtpUrl: string | null }) {
  const state = {} as { catcher: Awaited<ReturnType<typeof startMailCatcher>> };
  beforeAll(async () => {
    state.catcher = await startMailCatcher();
  });
  afterAll(() => state.catcher.close());
  return {
    get received() {
      return state.catcher.received;
    },
    async withSmtp<T>(run: () => Promise<T>, url = state.catcher.url): Promise<T> {
      config().smtpUrl = url;
      try {
        return await run();
      } finally {
        config().smtpUrl = null;
      }
    },
  };
}
