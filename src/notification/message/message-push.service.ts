import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Interval } from '@nestjs/schedule';

import { ErrorCode } from '../../common/error-code';
import { SessionClosedEvent } from '../../session/session.events';
import { SessionService } from '../../session/session.service';
import { KvStore } from '../../store/kv.store';
import { MESSAGE_PUSH_CHANNEL } from '../notification.constants';
import { reasonOf } from '../notification.errors';
import type { MessageView } from './message.types';
import { MessageStream } from './message-stream';
import { StreamSlot, StreamSlots } from './stream-slots';

interface Pushed {
  userId: string;
  message: MessageView;
}

const HEARTBEAT_MS = 25_000;
/** A stream ends within a second of its session. */
const SESSION_CHECK_MS = 500;

/**
 * Real-time half of the `site` channel (the message centre). New messages go out on MESSAGE_PUSH_CHANNEL
 * (process memory, or Redis pub/sub across instances); every instance writes
 * them to the SSE streams it holds for that user. Every stream holds a slot of
 * the caps (StreamSlots) from before it opens until it closes.
 */
@Injectable()
export class MessagePushService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Notification');
  private readonly streams = new Map<string, Set<MessageStream>>();
  /** The streams on this instance by their slot id (StreamSlots). */
  private readonly bySlot = new Map<string, MessageStream>();
  private checking = false;

  constructor(
    private readonly store: KvStore,
    private readonly sessions: SessionService,
    private readonly slots: StreamSlots,
  ) {}

  async onModuleInit() {
    await this.store.subscribe(MESSAGE_PUSH_CHANNEL, (raw) => this.fanOut(raw));
  }

  /**
   * Ends every stream so that the HTTP server can close; browsers reconnect to another instance.
   * Their slots are freed for those reconnects (the store closes after this hook).
   */
  async onModuleDestroy() {
    const streams = [...this.streams.values()].flatMap((set) => [...set]);
    for (const stream of streams) stream.close();
    await Promise.allSettled(streams.map((stream) => this.detach(stream)));
  }

  publish(userId: string, message: MessageView): Promise<void> {
    return this.store.publish(MESSAGE_PUSH_CHANNEL, JSON.stringify({ userId, message } satisfies Pushed));
  }

  /**
   * The slot a new stream of the session takes before it opens. The streams it pushes
   * out end here when this instance holds them, and at their own instance's next check otherwise.
   */
  async claimSlot(userId: string, tokenHash: string): Promise<StreamSlot> {
    const { slot, evicted } = await this.slots.claim(userId, tokenHash);
    for (const id of evicted) {
      const stream = this.bySlot.get(id);
      if (stream) this.endEvicted(stream);
    }
    return slot;
  }

  /** A slot claimed for a stream that never opened (the client left meanwhile). */
  releaseSlot(slot: StreamSlot): Promise<void> {
    return this.slots
      .release(slot)
      .catch((err: unknown) => this.logger.warn(`message stream slot not released: ${reasonOf(err)}`));
  }

  attach(stream: MessageStream): void {
    let set = this.streams.get(stream.userId);
    if (!set) this.streams.set(stream.userId, (set = new Set()));
    set.add(stream);
    if (stream.slot) this.bySlot.set(stream.slot.id, stream);
  }

  /** The stream is closed or closing: off this instance's lists, and its slot free for another. */
  detach(stream: MessageStream): Promise<void> {
    const set = this.streams.get(stream.userId);
    if (set) {
      set.delete(stream);
      if (!set.size) this.streams.delete(stream.userId);
    }
    // Once per stream, whichever of close, session end or eviction came first.
    if (!stream.slot || this.bySlot.get(stream.slot.id) !== stream) return Promise.resolve();
    this.bySlot.delete(stream.slot.id);
    return this.releaseSlot(stream.slot);
  }

  private endEvicted(stream: MessageStream): void {
    stream.end(ErrorCode.RATE_LIMITED);
    void this.detach(stream);
  }

  /** Number of open streams of a user on this instance. */
  openStreams(userId: string): number {
    return this.streams.get(userId)?.size ?? 0;
  }

  /**
   * A session ended or kicked out on this instance: its streams here end at once, with the end
   * event the periodic check would have sent (streams on other instances wait for their check).
   */
  @OnEvent(SessionClosedEvent.NAME)
  endStreamsOf({ userId, tokenHash, kickedOut }: SessionClosedEvent): void {
    for (const stream of [...(this.streams.get(userId) ?? [])]) {
      if (stream.tokenHash !== tokenHash) continue;
      stream.end(kickedOut ? ErrorCode.KICKED_OUT : ErrorCode.NOT_LOGGED_IN);
      void this.detach(stream);
    }
  }

  /**
   * Every open stream's session is looked up twice a
   * second (one store read per session, whichever instance or path ended it: logout, kick-out, lock,
   * disable, reset, password change, expiry), and the stream of a session that has ended is closed
   * with an `end` event saying why. In the same pass, one read of this instance's stream slots ends
   * the streams a newer one pushed out on any instance. Runs never overlap: a slow
   * store delays the next one.
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
            void this.detach(stream);
            continue;
          }
          let same = byHash.get(stream.tokenHash);
          if (!same) byHash.set(stream.tokenHash, (same = []));
          same.push(stream);
        }
      }
      await Promise.all(
        [...byHash].map(async ([tokenHash, streams]) => {
          try {
            const session = await this.sessions.byTokenId(tokenHash);
            if (session && session.kickout !== 1) return;
            for (const stream of streams) {
              stream.end(session?.kickout === 1 ? ErrorCode.KICKED_OUT : ErrorCode.NOT_LOGGED_IN);
              void this.detach(stream);
            }
          } catch (err) {
            // The store is down: keep the stream; the next check decides.
            this.logger.warn(`message stream session check: ${reasonOf(err)}`);
          }
        }),
      );
      await this.endEvictedElsewhere();
    } finally {
      this.checking = false;
    }
  }

  /** The streams of this instance whose slot an open on any instance marked evicted. */
  private async endEvictedElsewhere(): Promise<void> {
    try {
      for (const id of await this.slots.evictedAmong([...this.bySlot.keys()])) {
        const stream = this.bySlot.get(id);
        if (stream) this.endEvicted(stream);
      }
    } catch (err) {
      this.logger.warn(`message stream slot check: ${reasonOf(err)}`);
    }
  }

  /**
   * Keeps idle streams alive through proxies that close quiet connections, and their slots alive in
   * the store: the slots of an instance that stopped beating expire (StreamSlots).
   */
  @Interval('message-stream-heartbeat', HEARTBEAT_MS)
  async heartbeat(): Promise<void> {
    await this.checkSessions();
    for (const set of [...this.streams.values()]) {
      for (const stream of [...set]) {
        if (stream.isOpen) stream.ping();
        else void this.detach(stream);
      }
    }
    await Promise.all(
      [...this.bySlot.values()].map(async (stream) => {
        try {
          if (!(await this.slots.refresh(stream.slot!))) this.endEvicted(stream);
        } catch (err) {
          this.logger.warn(`message stream slot not refreshed: ${reasonOf(err)}`);
        }
      }),
    );
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
