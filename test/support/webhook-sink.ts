import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the sink received. */
export interface SinkRequest {
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON. */
  body: any;
  /** The body exactly as it came (what a signature is checked against). */
  raw: string;
  /** The path and query it was sent to. */
  url: string;
  status: number;
}

/**
 * A tiny HTTP server standing in for a receiver (the SMS provider, a webhook's system);
 * `status` decides the answer, `queued` the answers of the next requests first.
 */
export class WebhookSink {
  /** Every request, whatever the answer, with the status it got. */
  readonly requests: SinkRequest[] = [];
  /** Only the requests answered 2xx: what the provider accepted. */
  readonly accepted: any[] = [];
  status = 200;
  /** Answers for the next requests, in order, before `status` applies again. */
  readonly queued: number[] = [];
  /** Set: every answer is a 302 to this address (a receiver that redirects). */
  redirectTo?: string;
  /** A slow provider widens the window in which a second instance could deliver the same row. */
  delayMs = 0;
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw);
        const status = this.redirectTo ? 302 : (this.queued.shift() ?? this.status);
        this.requests.push({ headers: req.headers, body, raw, url: req.url ?? '', status });
        setTimeout(() => {
          if (status < 300) this.accepted.push(body);
          const headers = this.redirectTo ? { location: this.redirectTo } : {};
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end('{}');
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    if (this.server) {
      // Requests still held by delayMs would keep close() waiting.
      this.server.closeAllConnections();
      await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/sms`;
  }

  /** This sink's address under another path (a webhook's receiver). */
  at(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }
}
