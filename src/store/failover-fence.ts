import { Logger } from '@nestjs/common';
import { createClient, RedisClientType } from '@redis/client';

/** Longest a failover that neither ends nor aborts keeps writes refused; then the old primary is used again. */
export const FENCE_MAX_MS = 15_000;

const node = (host: string, port: number | string) => `${host}:${port}`;

/**
 * Writes stop while the Sentinels fail the primary over. In a failover of a primary that still
 * runs (SENTINEL FAILOVER, maintenance), the Sentinels promote a replica while the old primary
 * keeps taking writes until it is demoted (up to 10 s later), and the other replicas keep
 * confirming them (WAIT) until they are moved to the new primary — those writes are then lost.
 * Every Sentinel announces a failover it starts (`+try-failover`, a few hundred ms before it
 * promotes the replica); from then on until the service follows the new primary (or the
 * Sentinels give up, `-failover-abort-*`), writes answer 503 and a write in flight does not
 * count as done. Reads go on.
 */
export class FailoverFence {
  private readonly logger = new Logger('Redis');
  private readonly watchers: RedisClientType[] = [];
  private fencedPrimary?: string;
  private fencedUntil = 0;
  /** Changes whenever a failover starts or the connection to the primary was lost or moved. */
  epoch = 0;

  constructor(
    sentinels: { host: string; port: number }[],
    private readonly master: string,
    private readonly now: () => number = Date.now,
  ) {
    const complained = new Set<string>();
    for (const sentinel of sentinels) {
      const client = createClient({
        socket: {
          host: sentinel.host,
          port: sentinel.port,
          connectTimeout: 3000,
          reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 3000),
        },
        commandOptions: { timeout: 0 },
      }) as RedisClientType;
      // One line per Sentinel until it answers again: it is down, the others still watch.
      client.on('error', (err: Error) => {
        const where = node(sentinel.host, sentinel.port);
        if (complained.has(where)) return;
        complained.add(where);
        this.logger.warn(`redis sentinel ${where}: ${err.constructor.name}: ${err.message}`);
      });
      client.on('ready', () => complained.delete(node(sentinel.host, sentinel.port)));
      this.watchers.push(client);
      void client
        .connect()
        .then(() =>
          client.pSubscribe(['+try-failover', '-failover-abort-*'], (message, channel) =>
            this.onEvent(channel, message),
          ),
        )
        .catch(() => undefined);
    }
  }

  /** `+try-failover master <name> <ip> <port>`, `-failover-abort-not-elected master <name> <ip> <port>`. */
  onEvent(channel: string, message: string): void {
    const [kind, name, host, port] = message.split(' ');
    if (kind !== 'master' || name !== this.master) return;
    if (channel === '+try-failover') {
      if (this.fencedUntil <= this.now())
        this.logger.warn(`redis sentinel: failover of ${this.master} started, writes wait for the new primary`);
      this.fencedPrimary = node(host, port);
      this.fencedUntil = this.now() + FENCE_MAX_MS;
      this.epoch++;
    } else if (this.fencedUntil && channel.startsWith('-failover-abort')) {
      this.fencedUntil = 0;
    }
  }

  /** The service now talks to `primary` (node-redis found it through the Sentinels). */
  primaryMoved(primary: { host: string; port: number } | undefined): void {
    this.epoch++;
    if (primary && node(primary.host, primary.port) !== this.fencedPrimary) this.fencedUntil = 0;
  }

  /** The connection to the primary dropped: a write just confirmed may have gone elsewhere. */
  connectionLost(): void {
    this.epoch++;
  }

  get writesRefused(): boolean {
    return this.fencedUntil > this.now();
  }

  close(): void {
    for (const client of this.watchers) {
      try {
        client.destroy();
      } catch {
        // never connected, or already closed
      }
    }
  }
}
