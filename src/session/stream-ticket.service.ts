import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { json, OneTimeKind, OneTimeStore } from '../store/one-time-store';

export const STREAM_TICKET_TTL_MS = 30_000;

interface StoredTicket {
  /** The session that asked: the stream opened with the ticket lives and ends with it. */
  tokenHash: string;
}

/** STREAM_TICKET:{sha256hex(ticket)}; a ticket is 256 random bits in base64url. */
const TICKETS: OneTimeKind<StoredTicket> = {
  key: Keys.streamTicket,
  ttlMs: STREAM_TICKET_TTL_MS,
  hashed: true,
  format: json<StoredTicket>(),
  shape: /^[A-Za-z0-9_-]{43}$/,
};

/**
 * Browsers' EventSource cannot send Admin-Token, and a token in a URL
 * ends up in proxy logs and browser history. A ticket is what goes into the URL instead: random,
 * valid 30 s, good for one stream, and worth nothing after. Stored by its SHA-256, as tokens are.
 */
@Injectable()
export class StreamTicketService {
  private readonly tickets: OneTimeStore<StoredTicket>;

  constructor(store: KvStore, clock: Clock) {
    this.tickets = new OneTimeStore(store, clock, TICKETS);
  }

  issue(tokenHash: string): Promise<string> {
    return this.tickets.issue({ tokenHash });
  }

  /** The token hash of the session a live ticket was issued to, once: of parallel redeemers exactly one gets it. */
  async redeem(ticket: string): Promise<string | null> {
    return (await this.tickets.consume(ticket))?.tokenHash ?? null;
  }
}
