import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { SessionService } from '../../session/session.service';
import { ErrorCode } from '../../common/error-code';
import { KvStore } from '../../store/kv.store';
import { MESSAGE_PUSH_CHANNEL } from '../notification.constants';
import { reasonOf } from '../notification.errors';
import { MessageStream } from './message-stream';
import type { MessageView } from './message.types';

interface Pushed {
  userId: string;
  message: MessageView;
}

const HEARTBEAT_MS = 25_000;
/** Contract §11: a stream ends within a second of its session. */
const SESSION_CHECK_MS = 500;

/**
 * Real-time half of spec 4.2 `site`. New messages go out on MESSAGE_PUSH_CHANNEL
 * (process memory, or Redis pub/sub across instances); every instance writes
 * them to the SSE streams it holds for that user.
 */
@Injectable()
export class MessagePushService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Notification');
  private readonly streams = new Map<string, Set<MessageStream>>();
  private checking = false;

  constructor(private readonly store: KvStore, private readonly sessions: SessionService) {}

  async onModuleInit() {
    await this.store.subscribe(MESSAGE_PUSH_CHANNEL, (raw) => this.fanOut(raw));
  }

  /** Ends every stream so that the HTTP server can close; browsers reconnect to another instance. */
  onModuleDestroy() {
    for (const set of this.streams.values()) for (const stream of set) stream.close();
    this.streams.clear();
  }

  publish(userId: string, message: MessageView): Promise<void> {
    return this.store.publish(MESSAGE_PUSH_CHANNEL, JSON.stringify({ userId, message } satisfies Pushed));
  }

  attach(stream: MessageStream): void {
    let set = this.streams.get(stream.userId);
    if (!set) this.streams.set(stream.userId, (set = new Set()));
    set.add(stream);
  }

  detach(stream: MessageStream): void {
    const set = this.streams.get(stream.userId);
    if (!set) return;
    set.delete(stream);
    if (!set.size) this.streams.delete(stream.userId);
  }

  /** Number of open streams of a user on this instance. */
  openStreams(userId: string): number {
    return this.streams.get(userId)?.size ?? 0;
  }

  /**
   * Contract §11 "Streams end with their session": every open stream's session is looked up twice a
   * second (one store read per session, whichever instance or path ended it: logout, kick-out, lock,
   * disable, reset, password change, expiry), and the stream of a session that has ended is closed
   * with an `end` event saying why. Runs never overlap: a slow store delays the next one.
   */
  @Interval('message-stream-session-check', SESSION_CHECK_MS)
  async checkSessions(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const byHash = new Map<string, MessageStream[]>();
      for (const set of this.streams.values()) {
        for (const stream of set) {
          // A client that left unnoticed is dropped here rather than kept until its session ends.
          if (!stream.isOpen) {
            this.detach(stream);
            continue;
          }
          let same = byHash.get(stream.tokenHash);
          if (!same) byHash.set(stream.tokenHash, (same = []));
          same.push(stream);
        }
      }
      await Promise.all([...byHash].map(async ([tokenHash, streams]) => {
        try {
          const session = await this.sessions.byTokenId(tokenHash);
          if (session && session.kickout !== 1) return;
          for (const stream of streams) {
            stream.end(session?.kickout === 1 ? ErrorCode.KICKED_OUT : ErrorCode.NOT_LOGGED_IN);
            this.detach(stream);
          }
        } catch (err) {
          // The store is down: keep the stream; the next check decides.
          this.logger.warn(`message stream session check: ${reasonOf(err)}`);
        }
      }));
    } finally {
      this.checking = false;
    }
  }

  /** Keeps idle streams alive through proxies that close quiet connections. */
  @Interval('message-stream-heartbeat', HEARTBEAT_MS)
  async heartbeat(): Promise<void> {
    await this.checkSessions();
    for (const set of [...this.streams.values()]) {
      for (const stream of [...set]) {
        if (stream.isOpen) stream.ping();
        else this.detach(stream);
      }
    }
  }

  private fanOut(raw: string): void {
    let pushed: Pushed;
    try {
      pushed = JSON.parse(raw) as Pushed;
    } catch {
      return;
    }
    for (const stream of this.streams.get(pushed.userId) ?? []) stream.send(pushed.message);
  }
}
