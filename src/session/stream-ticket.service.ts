import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { Clock } from '../common/clock';
import { KvStore } from '../store/kv.store';
import { Keys } from '../store/keys';

export const STREAM_TICKET_TTL_MS = 30_000;

interface StoredTicket {
  /** The session that asked: the stream opened with the ticket lives and ends with it. */
  tokenHash: string;
  /** epoch ms, by the injected clock (the store's own expiry is the upper bound). */
  expireAt: number;
}

const hashOf = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/**
 * Browsers' EventSource cannot send Admin-Token, and a token in a URL
 * ends up in proxy logs and browser history. A ticket is what goes into the URL instead: random,
 * valid 30 s, good for one stream, and worth nothing after. Stored by its SHA-256, as tokens are.
 */
@Injectable()
export class StreamTicketService {
  constructor(private readonly store: KvStore, private readonly clock: Clock) {}

  async issue(tokenHash: string): Promise<string> {
    const ticket = randomBytes(32).toString('base64url');
    const stored: StoredTicket = { tokenHash, expireAt: this.clock.nowMs() + STREAM_TICKET_TTL_MS };
    await this.store.set(Keys.streamTicket(hashOf(ticket)), JSON.stringify(stored), STREAM_TICKET_TTL_MS);
    return ticket;
  }

  /** The token hash of the session a live ticket was issued to, once: of parallel redeemers exactly one gets it. */
  async redeem(ticket: string): Promise<string | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(ticket)) return null;
    const raw = await this.store.getDel(Keys.streamTicket(hashOf(ticket)));
    if (!raw) return null;
    const stored = JSON.parse(raw) as StoredTicket;
    return stored.expireAt > this.clock.nowMs() ? stored.tokenHash : null;
  }
}
