import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, In, Repository } from 'typeorm';

import { PreparedSelect } from '../common/prepared-select';
import { RecoveryCodeEntity, UserMfaEntity } from './mfa.entities';

/** `sys_user_mfa` and `sys_user_recovery_code`: the only place that queries them. */
@Injectable()
export class MfaRepository {
  /** Read by every login; its SQL written once. */
  private readonly enrolmentOf: PreparedSelect<UserMfaEntity>;

  constructor(
    @InjectRepository(UserMfaEntity) private readonly mfa: Repository<UserMfaEntity>,
    @InjectRepository(RecoveryCodeEntity) private readonly codes: Repository<RecoveryCodeEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.enrolmentOf = new PreparedSelect(mfa.createQueryBuilder('m').where('m.user_id = :userId'));
  }

  enrolment(userId: string): Promise<UserMfaEntity | null> {
    return this.enrolmentOf.one({ userId });
  }

  /** Enrolments by user id after `afterUserId`, `limit` at a time: the re-encryption after a switch of CRYPTO_SUITE. */
  secretsAfter(afterUserId: string, limit: number): Promise<Pick<UserMfaEntity, 'userId' | 'secret'>[]> {
    return this.mfa
      .createQueryBuilder('m')
      .select(['m.userId', 'm.secret'])
      .where('m.user_id > :afterUserId', { afterUserId })
      .orderBy('m.user_id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Replaces a secret by its re-encryption, unless it changed meanwhile (another instance, a new enrolment). */
  async replaceSecret(userId: string, was: string, now: string): Promise<boolean> {
    const result = await this.mfa.update({ userId, secret: was }, { secret: now });
    return (result.affected ?? 0) === 1;
  }

  async enabledAmong(userIds: string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set();
    const rows = await this.mfa.find({ select: { userId: true }, where: { userId: In(userIds) } });
    return new Set(rows.map((r) => r.userId));
  }

  /** TOTP on, with its first recovery codes, in one transaction (any earlier enrolment is replaced). */
  async enable(row: UserMfaEntity, codeHashes: string[]): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.delete(UserMfaEntity, { userId: row.userId });
      await tx.delete(RecoveryCodeEntity, { userId: row.userId });
      await tx.insert(UserMfaEntity, row);
      await tx.insert(
        RecoveryCodeEntity,
        codeHashes.map((codeHash) => ({ userId: row.userId, codeHash, usedTime: null })),
      );
    });
  }

  /**
   * Records `step` as used if it is later than the last used one: of concurrent callers with the
   * same step, on any instance, exactly one gets true (no code accepted twice).
   */
  async claimStep(userId: string, step: number): Promise<boolean> {
    const result = await this.mfa
      .createQueryBuilder()
      .update(UserMfaEntity)
      .set({ lastUsedStep: step })
      .where('user_id = :userId', { userId })
      .andWhere(new Brackets((w) => w.where('last_used_step IS NULL').orWhere('last_used_step < :step', { step })))
      .execute();
    return result.affected === 1;
  }

  /** Spends an unused recovery code: of concurrent uses exactly one gets true. */
  async useRecoveryCode(userId: string, codeHash: string, at: Date): Promise<boolean> {
    const result = await this.codes
      .createQueryBuilder()
      .update(RecoveryCodeEntity)
      .set({ usedTime: at })
      .where('user_id = :userId', { userId })
      .andWhere('code_hash = :codeHash', { codeHash })
      .andWhere('used_time IS NULL')
      .execute();
    return (result.affected ?? 0) >= 1;
  }

  /** A new set; the old one is void. */
  async replaceRecoveryCodes(userId: string, codeHashes: string[]): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.delete(RecoveryCodeEntity, { userId });
      await tx.insert(
        RecoveryCodeEntity,
        codeHashes.map((codeHash) => ({ userId, codeHash, usedTime: null })),
      );
    });
  }

  /** TOTP and recovery codes gone (disable, administrator reset). */
  async remove(userId: string): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.delete(UserMfaEntity, { userId });
      await tx.delete(RecoveryCodeEntity, { userId });
    });
  }
}
