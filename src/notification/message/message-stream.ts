import type { ServerResponse } from 'node:http';

import { ErrorCode, Locale, messageOf } from '../../common/error-code';
import type { MessageView } from './message.types';
import type { StreamSlot } from './stream-slots';

/**
 * One open Server-Sent-Events response of one session. Events are
 * `event: message` with the message as JSON and its id as the event id.
 */
export class MessageStream {
  private closed = false;

  constructor(
    readonly userId: string,
    /** The session behind it: the stream ends when that session does. */
    readonly tokenHash: string,
    private readonly response: ServerResponse,
    /** Language of the closing event's message (the stream request's Accept-Language). */
    private readonly locale: Locale = 'zh',
    /** Its place in the caps (StreamSlots); none for a stream nobody counts. */
    readonly slot: StreamSlot | null = null,
  ) {
    response.on('close', () => {
      this.closed = true;
    });
  }

  get isOpen(): boolean {
    // destroyed: the client left before this stream listened for 'close' (during authentication).
    return !this.closed && !this.response.writableEnded && !this.response.destroyed;
  }

  /** The first bytes: how long a browser waits before reconnecting, and a comment that flushes the headers. */
  open(): void {
    this.write('retry: 3000\n: connected\n\n');
  }

  send(message: MessageView): void {
    this.write(`id: ${message.id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** A comment line: keeps proxies from closing an idle stream. */
  ping(): void {
    this.write(': ping\n\n');
  }

  /**
   * The session behind the stream has ended, or a newer stream took its place: say
   * why, as `event: end` with the code and message an API call would get (KICKED_OUT,
   * NOT_LOGGED_IN, RATE_LIMITED), then close. A client must stop on it: an EventSource that
   * reconnects would spend the one KICKED_OUT answer of its token on a request whose answer it
   * cannot read, or push out the stream that replaced it.
   */
  end(code: ErrorCode.KICKED_OUT | ErrorCode.NOT_LOGGED_IN | ErrorCode.RATE_LIMITED): void {
    this.write(`event: end\ndata: ${JSON.stringify({ code, message: messageOf(code, this.locale) })}\n\n`);
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.response.end();
  }

  private write(chunk: string): void {
    if (this.isOpen) this.response.write(chunk);
  }
}
