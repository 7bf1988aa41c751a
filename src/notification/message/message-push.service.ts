import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { SessionService } from '../../auth/session/session.service';
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

/**
 * Real-time half of spec 4.2 `site`. New messages go out on MESSAGE_PUSH_CHANNEL
 * (process memory, or Redis pub/sub across instances); every instance writes
 * them to the SSE streams it holds for that user.
 */
@Injectable()
export class MessagePushService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Notification');
  private readonly streams = new Map<string, Set<MessageStream>>();

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

  /** Keeps idle streams alive and ends those whose session has ended (logout, kick-out, expiry, lock). */
  @Interval('message-stream-heartbeat', HEARTBEAT_MS)
  async heartbeat(): Promise<void> {
    for (const set of [...this.streams.values()]) {
      for (const stream of [...set]) {
        try {
          const session = await this.sessions.byTokenId(stream.tokenHash);
          if (!session || session.kickout === 1 || !stream.isOpen) {
            stream.end(session?.kickout === 1 ? ErrorCode.KICKED_OUT : ErrorCode.NOT_LOGGED_IN);
            this.detach(stream);
          } else {
            stream.ping();
          }
        } catch (err) {
          this.logger.warn(`message stream heartbeat: ${reasonOf(err)}`);
        }
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
