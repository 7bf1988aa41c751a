import { get, IncomingHttpHeaders } from 'node:http';

import type { TestApp } from './test-app';

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/** An EventSource-like client on a real socket (http.get), collecting parsed events (GET /sys/message/stream). */
export class SseClient {
  readonly events: SseEvent[] = [];
  raw = '';
  /** The server ended the response. */
  ended = false;
  /** When it did (Date.now()). */
  endedAt?: number;
  private buffer = '';
  private waiters: (() => void)[] = [];

  private constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    readonly disconnect: () => void,
  ) {}

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        const client = new SseClient(res.statusCode ?? 0, res.headers, () => req.destroy());
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => client.feed(chunk));
        res.on('end', () => {
          client.ended = true;
          client.endedAt = Date.now();
        });
        resolve(client);
      });
      req.on('error', reject);
    });
  }

  /** Resolves with the first event matching `match`, or fails after timeoutMs. */
  async next(match: (e: SseEvent) => boolean, timeoutMs: number): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching SSE event within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private feed(chunk: string): void {
    this.raw += chunk;
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (!line || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
      }
      if (fields.data !== undefined) {
        this.events.push({ event: fields.event ?? 'message', id: fields.id, data: JSON.parse(fields.data) });
      }
    }
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** A one-time stream ticket of POST /sys/message/streamTicket, insisting on success. */
export async function streamTicket(app: TestApp, token: string): Promise<string> {
  const res = await app.post<{ ticket: string }>('/sys/message/streamTicket', {}, { token });
  expect(res.body).toMatchObject({ success: true, code: 'OK', data: { ticket: expect.any(String) } });
  return res.body.data!.ticket;
}
