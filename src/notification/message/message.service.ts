import { Injectable, Logger } from '@nestjs/common';

import { Page } from '../../common/paging.dto';
import { ListMessagesDto } from '../dto/message.dto';
import { reasonOf } from '../notification.errors';
import type { MessageEntity } from './message.entity';
import { MessageRepository } from './message.repository';
import { MessageView, NewMessage } from './message.types';
import { MessagePushService } from './message-push.service';

/** The message centre behind the `site` channel: store, list, mark read, and push new ones. */
@Injectable()
export class MessageService {
  private readonly logger = new Logger('Notification');

  constructor(
    private readonly messages: MessageRepository,
    private readonly push: MessagePushService,
  ) {}

  /**
   * Stores the message (a second post with the same id keeps the first) and
   * pushes it to the user's open streams on every instance. The push is best
   * effort: the message is in the list whatever happens to it.
   */
  async post(message: NewMessage): Promise<MessageView> {
    const row = await this.messages.insertOnce({ ...message, read: false });
    const view = toView(row);
    await this.push
      .publish(row.userId, view)
      .catch((err: unknown) => this.logger.warn(`could not push message ${row.id}: ${reasonOf(err)}`));
    return view;
  }

  /** The caller's messages, newest first. */
  async list(userId: string, query: ListMessagesDto): Promise<Page<MessageView>> {
    const [rows, total] = await this.messages.pageOfUser(userId, !!query.unreadOnly, query.pageNum, query.pageSize);
    return { total, rows: rows.map(toView) };
  }

  /** Marks the caller's own messages read; ids of other users' messages or unknown ids change nothing. */
  async markRead(userId: string, ids: string[]): Promise<void> {
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    await this.messages.markRead(userId, unique);
  }
}

function toView(row: MessageEntity): MessageView {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    content: row.content,
    read: !!row.read,
    createTime: row.createTime,
  };
}
