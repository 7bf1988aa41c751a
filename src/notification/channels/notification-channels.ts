import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';

import { AnyNotificationChannel, NOTIFICATION_CHANNELS } from '../notification.types';

/** sys_notification.channel is varchar(16). */
const CHANNEL_NAME = /^[a-z][a-z0-9-]{0,15}$/;

/**
 * Every channel the outbox delivers to, by name: the built-in three (email, sms, site) and those a
 * module adds through NOTIFICATION_CHANNELS — a security team's webhook, a chat robot. The
 * strategy's sendMsgWhenError* fields choose among the built-in three only; a module that adds a
 * channel also decides when to send to it (NotificationService.notify with its name), and gets the
 * outbox's durability, retries and statuses for free. A name the outbox cannot store, or one taken
 * twice, stops the start.
 */
@Injectable()
export class NotificationChannels implements OnModuleInit {
  private readonly byName = new Map<string, AnyNotificationChannel>();

  constructor(private readonly modules: ModuleRef) {}

  onModuleInit() {
    for (const channel of NOTIFICATION_CHANNELS.collect(this.modules)) {
      if (!CHANNEL_NAME.test(channel.name))
        throw new Error(`a channel name is 1 to 16 of a-z, 0-9, -: ${channel.name}`);
      if (this.byName.has(channel.name)) throw new Error(`notification channel ${channel.name} is already in use`);
      this.byName.set(channel.name, channel);
    }
  }

  get(name: string): AnyNotificationChannel | undefined {
    return this.byName.get(name);
  }
}
