import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { Page } from '../../common/paging.dto';
import { ListMessagesDto } from '../dto/message.dto';
import { isUniqueViolation } from '../../common/db-errors';
import { reasonOf } from '../notification.errors';
import { MessageEntity } from './message.entity';
import { MessagePushService } from './message-push.service';
import { MessageView, NewMessage } from './message.types';

/** The message centre of spec 4.2 `site`: store, list, mark read, and push new ones. */
@Injectable()
export class MessageService {
  private readonly logger = new Logger('Notification');

  constructor(
    @InjectRepository(MessageEntity) private readonly messages: Repository<MessageEntity>,
    private readonly push: MessagePushService,
  ) {}

  /**
   * Stores the message (a second post with the same id keeps the first) and
   * pushes it to the user's open streams on every instance. The push is best
   * effort: the message is in the list whatever happens to it.
   */
  async post(message: NewMessage): Promise<MessageView> {
    let row: MessageEntity = { ...message, read: false };
    try {
      await this.messages.insert(row);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      row = (await this.messages.findOneBy({ id: message.id }))!;
    }
    const view = toView(row);
    await this.push.publish(row.userId, view).catch((err: unknown) =>
      this.logger.warn(`could not push message ${row.id}: ${reasonOf(err)}`));
    return view;
  }

  /** The caller's messages, newest first. */
  async list(userId: string, query: ListMessagesDto): Promise<Page<MessageView>> {
    const qb = this.messages.createQueryBuilder('m').where('m.user_id = :userId', { userId });
    if (query.unreadOnly) qb.andWhere('m.is_read = :read', { read: false });
    const [rows, total] = await qb.orderBy('m.create_time', 'DESC').addOrderBy('m.id', 'DESC')
      .skip((query.pageNum - 1) * query.pageSize).take(query.pageSize).getManyAndCount();
    return { total, rows: rows.map(toView) };
  }

  /** Marks the caller's own messages read; ids of other users' messages or unknown ids change nothing. */
  async markRead(userId: string, ids: string[]): Promise<void> {
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    await this.messages.update({ userId, id: In(unique) }, { read: true });
  }
}

function toView(row: MessageEntity): MessageView {
  return { id: row.id, kind: row.kind, title: row.title, content: row.content, read: !!row.read, createTime: row.createTime };
}
