import type { AddressInfo } from 'node:net';

import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** Decoded text of every MIME part (quoted-printable / base64 undone). */
  text: string;
}

/** A real SMTP server on a local port; stop() and start() again keep the port. */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];
  port = 0;
  private server?: SMTPServer;

  async start(): Promise<this> {
    this.server = new SMTPServer({
      logger: false,
      authOptional: true,
      // Plain SMTP on localhost: no STARTTLS with the built-in test certificate.
      disabledCommands: ['STARTTLS', 'AUTH'],
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const to = session.envelope.rcptTo.map((r) => r.address);
          this.mails.push({ to, raw, text: mimeText(raw) });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  to(address: string): ReceivedMail[] {
    return this.mails.filter((m) => m.to.includes(address));
  }
}

/** Decodes the bodies of a raw MIME message enough to search them. */
function mimeText(raw: string): string {
  const parts: string[] = [];
  const re = /Content-Transfer-Encoding:\s*([\w-]+)\r?\n(?:[^\r\n]+\r?\n)*\r?\n([\s\S]*?)(?=\r?\n--|$)/gi;
  for (const [, encoding, body] of raw.matchAll(re)) {
    if (/base64/i.test(encoding)) parts.push(Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8'));
    else if (/quoted-printable/i.test(encoding)) parts.push(decodeQuotedPrintable(body));
    else parts.push(body);
  }
  return parts.join('\n');
}

function decodeQuotedPrintable(body: string): string {
  const joined = body.replace(/=\r?\n/g, '');
  return joined.replace(/(?:=[0-9A-F]{2})+/gi, (run) =>
    Buffer.from(
      run
        .split('=')
        .slice(1)
        .map((h) => parseInt(h, 16)),
    ).toString('utf8'),
  );
}

/** A port with nothing listening (an SMTP server that is down). */
export async function deadSmtp(): Promise<SmtpSink> {
  const sink = await new SmtpSink().start();
  await sink.stop();
  return sink;
}
