import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';

import { isUniqueViolation } from '../../common/db-errors';
import { MessageEntity } from './message.entity';

/** `sys_message`, the message centre's table: the only place that queries it. */
@Injectable()
export class MessageRepository {
  constructor(@InjectRepository(MessageEntity) private readonly messages: Repository<MessageEntity>) {}

  /** Stores the row unless its id is taken; resolves to the stored row (the earlier one when taken). */
  async insertOnce(row: MessageEntity): Promise<MessageEntity> {
    try {
      await this.messages.insert(row);
      return row;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return (await this.messages.findOneBy({ id: row.id }))!;
    }
  }

  /** One page of the user's messages (only unread ones when asked), newest first, and how many there are in all. */
  pageOfUser(
    userId: string,
    unreadOnly: boolean,
    pageNum: number,
    pageSize: number,
  ): Promise<[MessageEntity[], number]> {
    const qb = this.messages.createQueryBuilder('m').where('m.user_id = :userId', { userId });
    if (unreadOnly) qb.andWhere('m.is_read = :read', { read: false });
    return qb
      .orderBy('m.create_time', 'DESC')
      .addOrderBy('m.id', 'DESC')
      .skip((pageNum - 1) * pageSize)
      .take(pageSize)
      .getManyAndCount();
  }

  /** Marks read those of `ids` that are the user's messages; other ids change nothing. */
  async markRead(userId: string, ids: string[]): Promise<void> {
    await this.messages.update({ userId, id: In(ids) }, { read: true });
  }
}
