import { defineStore } from 'pinia';
import { ref } from 'vue';

import { getMeInfo } from '@/api/auth';
import { listMessages, markRead, openMessageStream, type SiteMessage } from '@/api/message';
import { ApiError, getToken, SESSION_END_CODES, sessionEnded } from '@/api/request';

const RETRY_MS = 3000;

/** Site messages: the unread count of the header, and new ones arriving live over SSE. */
export const useMessageStore = defineStore('messages', () => {
  const unread = ref(0);
  /** Bumped for every message that arrives live, so that an open list reloads. */
  const arrivals = ref(0);
  const listeners = new Set<(m: SiteMessage) => void>();
  let source: EventSource | null = null;
  let running = false;
  let retry: number | undefined;
  /** Set while a stream pushed out by a newer tab waits for this tab to be looked at again. */
  let whenVisible: (() => void) | null = null;

  /**
   * Counts are read from the service, never patched on top of a read in flight: each refresh
   * takes a ticket, only the newest one writes, and a message that arrives while it is in flight
   * (the service may have counted before or after inserting it) makes it ask again.
   */
  let ticket = 0;
  async function refreshUnread(): Promise<void> {
    const mine = ++ticket;
    const arrivedBefore = arrivals.value;
    const { total } = await listMessages({ pageNum: 1, pageSize: 1, unreadOnly: true });
    if (mine !== ticket) return;
    if (arrivals.value !== arrivedBefore) return refreshUnread();
    unread.value = total;
  }

  async function read(ids: string[]): Promise<void> {
    if (!ids.length) return;
    await markRead(ids);
    await refreshUnread();
  }

  function onArrival(listener: (m: SiteMessage) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Bumped by every connect and by stop: a ticket that arrives for an older one is not used. */
  let generation = 0;

  async function connect(): Promise<void> {
    const token = getToken();
    if (!token) return;
    const mine = ++generation;
    let opened: EventSource;
    try {
      // A fresh one-time ticket for every connection, reconnects included.
      opened = await openMessageStream();
    } catch (e) {
      // A session that has ended was reported by the request wrapper; anything else: try again later.
      if (mine === generation && running) scheduleProbe(e);
      return;
    }
    if (mine !== generation || !running) {
      opened.close();
      return;
    }
    source = opened;
    // (Re)connected: whatever arrived while the stream was down is in the count.
    source.addEventListener('open', () => void refreshUnread().catch(() => {}));
    source.addEventListener('message', (event) => {
      const message = JSON.parse((event as MessageEvent<string>).data) as SiteMessage;
      if (!message.read) unread.value += 1;
      arrivals.value += 1;
      listeners.forEach((l) => l(message));
    });
    // The service ends the stream of a session that ended (logout, kick-out, lock, expiry) within a
    // second, with an `end` event saying why: that is the end of this session, with the server's message.
    source.addEventListener('end', (event) => {
      source?.close();
      source = null;
      const { code, message } = JSON.parse((event as MessageEvent<string>).data) as { code: string; message: string };
      if (code === 'RATE_LIMITED') reconnectWhenVisible();
      else sessionEnded(token, new ApiError(code, message, 401));
    });
    // Otherwise (the service restarts, the network drops): EventSource would reconnect on its own
    // with a ticket already spent; ask through the API instead, and reconnect (with a new ticket)
    // only while the session lives.
    source.addEventListener('error', () => {
      source?.close();
      source = null;
      scheduleProbe();
    });
  }

  /**
   * A session keeps at most 5 open streams, and a newer one (another tab) pushed this
   * one out; the session lives on. Reconnecting at once would push out the next tab, and so on: this
   * tab takes a stream again when it is looked at again, pushing out the one looked at longest ago.
   */
  function reconnectWhenVisible(): void {
    if (whenVisible) return;
    whenVisible = () => {
      if (document.visibilityState !== 'visible') return;
      forgetVisibility();
      if (running && !source) void connect();
    };
    document.addEventListener('visibilitychange', whenVisible);
  }

  function forgetVisibility(): void {
    if (whenVisible) document.removeEventListener('visibilitychange', whenVisible);
    whenVisible = null;
  }

  function scheduleProbe(error?: unknown): void {
    if (error instanceof ApiError && (SESSION_END_CODES.has(error.code) || error.code === 'TEMP_TOKEN_FORBIDDEN'))
      return;
    window.clearTimeout(retry);
    retry = window.setTimeout(probe, RETRY_MS);
  }

  async function probe(): Promise<void> {
    if (!running) return;
    try {
      await getMeInfo();
      if (running && !source) await connect();
    } catch (e) {
      if (e instanceof ApiError && (SESSION_END_CODES.has(e.code) || e.code === 'TEMP_TOKEN_FORBIDDEN')) return;
      retry = window.setTimeout(probe, RETRY_MS * 2);
    }
  }

  function start(): void {
    if (running) return;
    running = true;
    void connect();
  }

  function stop(): void {
    running = false;
    ticket += 1; // a refresh still in flight belongs to the ended session
    generation += 1; // and so does a stream ticket
    window.clearTimeout(retry);
    forgetVisibility();
    source?.close();
    source = null;
    unread.value = 0;
  }

  return { unread, arrivals, refreshUnread, read, onArrival, start, stop };
});
