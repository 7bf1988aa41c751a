import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tiny HTTP server standing in for the SMS provider; `status` decides the answer. */
export class WebhookSink {
  /** Every request, whatever the answer, with the status it got. */
  readonly requests: { headers: IncomingHttpHeaders; body: any; status: number }[] = [];
  /** Only the requests answered 2xx: what the provider accepted. */
  readonly accepted: any[] = [];
  status = 200;
  /** A slow provider widens the window in which a second instance could deliver the same row. */
  delayMs = 0;
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const status = this.status;
        this.requests.push({ headers: req.headers, body, status });
        setTimeout(() => {
          if (status < 300) this.accepted.push(body);
          res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/sms`;
  }
}
