import { Injectable, Logger } from '@nestjs/common';

import { Clock } from '../common/clock';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { StampedSnapshot } from '../store/stamped-snapshot';
import { WebhookRepository } from './webhook.repository';
import { eventsOf, WebhookEventType } from './webhook-events';

/** An enabled webhook as the publisher needs it: no URL, no secret (the delivery reads those). */
export interface EnabledWebhook {
  id: string;
  events: ReadonlySet<WebhookEventType>;
}

/** A change made on another instance is seen here once this much has passed. */
const COMPARE_MS = 1_000;
/** The webhooks are read again whatever the stamp says this often, should a stamp write have failed. */
const RELOAD_MS = 60_000;

/**
 * The enabled webhooks, from process memory, so that an event (a login publishes one) costs no query
 * while they do not change. Every save and delete rewrites the store's stamp (WEBHOOKS_STAMP): the
 * instance that made it reads the webhooks again at its next event, every other one once it has
 * compared the stamp, which it does at most once a second, on an event.
 */
@Injectable()
export class WebhookCache {
  private readonly logger = new Logger('Webhook');
  private readonly hooks: StampedSnapshot<readonly EnabledWebhook[]>;
  private stampFailing = false;

  constructor(
    private readonly rows: WebhookRepository,
    store: KvStore,
    clock: Clock,
  ) {
    this.hooks = new StampedSnapshot(store, {
      stampKey: Keys.webhooksStamp,
      read: () => this.read(),
      now: () => clock.nowMs(),
      reloadMs: RELOAD_MS,
    });
  }

  /** Oldest first. */
  async enabled(): Promise<readonly EnabledWebhook[]> {
    try {
      const hooks = await this.hooks.held(COMPARE_MS);
      this.stampFailing = false;
      return hooks;
    } catch (err) {
      // A store that does not answer must not cost the events: the database decides, as without the cache.
      if (!this.stampFailing) this.logger.warn(`cannot compare the webhooks' stamp: ${(err as Error).name}`);
      this.stampFailing = true;
      return this.read();
    }
  }

  /**
   * The webhooks changed (the caller has committed it). A stamp the store does not take is logged,
   * not answered: the change stands, and the other instances read it at their next reload.
   */
  async announce(): Promise<void> {
    try {
      await this.hooks.announce();
    } catch (err) {
      this.logger.warn(`could not announce a webhook change to the other instances: ${(err as Error).name}`);
    }
  }

  private async read(): Promise<readonly EnabledWebhook[]> {
    return (await this.rows.enabled()).map((hook) => Object.freeze({ id: hook.id, events: new Set(eventsOf(hook)) }));
  }
}
