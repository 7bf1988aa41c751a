import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

import { ErrorCode } from '../../common/error-code';
import { NotificationKind } from '../notification.types';
import type { MessageView } from './message.types';
import { MessageStream } from './message-stream';

/** The part of a ServerResponse the stream uses: write, end, writableEnded and the 'close' event. */
class FakeResponse extends EventEmitter {
  readonly chunks: string[] = [];
  writableEnded = false;
  destroyed = false;
  endCalls = 0;
  write(chunk: string): boolean {
    if (this.writableEnded) throw new Error('write after end');
    this.chunks.push(chunk);
    return true;
  }
  end(): this {
    this.endCalls++;
    this.writableEnded = true;
    return this;
  }
  /** The client went away. */
  disconnect(): void {
    this.emit('close');
  }
  get text(): string {
    return this.chunks.join('');
  }
}

const message: MessageView = {
  id: 'm-1',
  kind: NotificationKind.LOGIN_FAILED,
  title: '异常登录提醒',
  content: 'line 1\nline 2 "quoted"',
  read: false,
  createTime: '2025-01-01T00:00:00.000Z',
};

describe('MessageStream (SSE frames of GET /sys/message/stream)', () => {
  let response: FakeResponse;
  const streamOf = (locale?: 'zh' | 'en') =>
    new MessageStream('u1', 'hash-1', response as unknown as ServerResponse, locale);

  beforeEach(() => {
    response = new FakeResponse();
  });

  it('a response destroyed before the stream listened for close counts as closed', () => {
    response.destroyed = true;
    expect(streamOf().isOpen).toBe(false);
  });

  it('open sends the reconnect delay and a comment', () => {
    streamOf().open();
    expect(response.chunks).toEqual(['retry: 3000\n: connected\n\n']);
  });

  it('send writes one `message` event with the id and the message as single-line JSON', () => {
    streamOf().send(message);
    expect(response.chunks).toEqual([`id: m-1\nevent: message\ndata: ${JSON.stringify(message)}\n\n`]);
    const dataLines = response.text.split('\n').filter((l) => l.startsWith('data: '));
    expect(dataLines).toHaveLength(1);
    expect(JSON.parse(dataLines[0].slice(6))).toEqual(message);
  });

  it('ping writes a comment line only', () => {
    streamOf().ping();
    expect(response.chunks).toEqual([': ping\n\n']);
  });

  it('end sends `end` with code and message in the stream’s locale, then closes the response', () => {
    const stream = streamOf('en');
    stream.end(ErrorCode.KICKED_OUT);
    expect(response.chunks).toEqual([
      'event: end\ndata: {"code":"KICKED_OUT","message":"The account has logged in elsewhere"}\n\n',
    ]);
    expect(response.endCalls).toBe(1);
    expect(stream.isOpen).toBe(false);
  });

  it('the end message is Chinese by default', () => {
    streamOf().end(ErrorCode.NOT_LOGGED_IN);
    expect(response.text).toBe(
      `event: end\ndata: ${JSON.stringify({ code: 'NOT_LOGGED_IN', message: '未登录或登录已过期' })}\n\n`,
    );
  });

  it('writes nothing after the client closed the connection, and does not end it again', () => {
    const stream = streamOf();
    stream.open();
    response.disconnect();
    expect(stream.isOpen).toBe(false);
    stream.send(message);
    stream.ping();
    stream.end(ErrorCode.KICKED_OUT);
    stream.close();
    expect(response.chunks).toEqual(['retry: 3000\n: connected\n\n']);
    expect(response.endCalls).toBe(0);
  });

  it('writes nothing after it ended; close is idempotent', () => {
    const stream = streamOf();
    stream.end(ErrorCode.KICKED_OUT);
    const written = response.text;
    stream.send(message);
    stream.ping();
    stream.open();
    stream.end(ErrorCode.NOT_LOGGED_IN);
    stream.close();
    expect(response.text).toBe(written);
    expect(response.endCalls).toBe(1);
  });

  it('writes nothing to a response somebody else already ended', () => {
    const stream = streamOf();
    response.end();
    expect(stream.isOpen).toBe(false);
    expect(() => {
      stream.send(message);
      stream.ping();
    }).not.toThrow();
    expect(response.chunks).toEqual([]);
  });

  it('frames follow each other in order on an open stream', () => {
    const stream = streamOf();
    expect(stream.isOpen).toBe(true);
    stream.open();
    stream.send(message);
    stream.ping();
    expect(response.text).toBe(
      `retry: 3000\n: connected\n\nid: m-1\nevent: message\ndata: ${JSON.stringify(message)}\n\n: ping\n\n`,
    );
  });
});
