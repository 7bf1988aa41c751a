import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { actedBy, AuditLogService } from '../audit/audit-log.service';
import { ApiDoc } from '../common/api-docs';
import { AppException } from '../common/app.exception';
import type { Actor, AuthContext, Session } from '../common/auth-context';
import { CurrentActor, CurrentAuth, CurrentTokenHash, RequirePermissions } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { Page } from '../common/paging.dto';
import { SessionService } from '../session/session.service';
import { TargetAccess } from '../user-account/target-access';
import { UserLookup } from '../user-account/user-lookup.service';
import { KickoutDto, ListAllOnlineDto, ListOnlineDto, OnlineSessionRowDto } from './dto/online.dto';

/** Live sessions for administrators (all) and for each user (their own); a tokenId never reveals the token. */
@ApiTags('online sessions')
@ApiSecurity('Admin-Token')
@Controller('sys')
export class OnlineController {
  constructor(
    private readonly sessions: SessionService,
    private readonly accounts: UserLookup,
    private readonly audit: AuditLogService,
    private readonly access: TargetAccess,
  ) {}

  @Post('online/list')
  @HttpCode(200)
  @RequirePermissions('sys:online:list')
  @ApiDoc('List every live session', { data: OnlineSessionRowDto, shape: 'page' })
  async list(
    @CurrentTokenHash() ownTokenId: string | null,
    @Body() dto: ListAllOnlineDto,
  ): Promise<Page<OnlineSessionRowDto>> {
    const all = await this.sessions.allSessions();
    const keyword = dto.keyword?.trim().toLowerCase();
    // A search reads every session's user (an administrator's page, as many rows as live sessions).
    const found = keyword
      ? (await this.rows(all)).filter((r) => [r.username, r.name, r.ip].some((v) => v?.toLowerCase().includes(keyword)))
      : null;
    const total = found ? found.length : all.length;
    const from = (dto.pageNum - 1) * dto.pageSize;
    const rows = found ? found.slice(from, from + dto.pageSize) : await this.rows(all.slice(from, from + dto.pageSize));
    return { total, rows: rows.map((r) => ({ ...r, current: r.tokenId === ownTokenId })) };
  }

  @Post('online/kickout')
  @HttpCode(200)
  @RequirePermissions('sys:online:kickout')
  /**
   * Audited here (there is no online service): the target is the user whose session ended. Another
   * user's session only when the caller holds every code of that user.
   */
  @ApiDoc('End a session (its holder then gets KICKED_OUT)', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description: 'The session of a user holding codes the caller does not answers FORBIDDEN.',
  })
  async kickout(@Body() dto: KickoutDto, @CurrentActor() actor: Actor) {
    const session = await this.sessions.byTokenId(dto.tokenId);
    if (!session) throw new AppException(ErrorCode.NOT_FOUND);
    if (session.userId !== actor.id) {
      const holder = (await this.accounts.byIds([session.userId])).get(session.userId);
      await this.access.assertMayActOn(actor, [{ id: session.userId, username: holder?.username ?? session.username }]);
    }
    await this.sessions.end(dto.tokenId, session.userId, {
      reason: 'kickout',
      session,
      by: { id: actor.id, name: actor.name },
    });
    await this.audit.recordDone('online.kickout', async () => {
      const users = await this.accounts.byIds([session.userId, ...(actor.name === null ? [actor.id] : [])]);
      const username = users.get(session.userId)?.username ?? null;
      return {
        ...actedBy({ ...actor, name: actor.name ?? users.get(actor.id)?.username ?? null }),
        targetId: session.userId,
        targetName: username,
        detail: { tokenId: dto.tokenId, username },
      };
    });
  }

  @Post('me/sessions')
  @HttpCode(200)
  @ApiDoc("The caller's own live sessions", { data: OnlineSessionRowDto, shape: 'page' })
  async mine(@CurrentAuth() auth: AuthContext, @Body() dto: ListOnlineDto): Promise<Page<OnlineSessionRowDto>> {
    const own = (await this.sessions.sessionsOf(auth.session.userId)).sort(
      (a, b) => b.session.loginTime - a.session.loginTime,
    );
    const page = own.slice((dto.pageNum - 1) * dto.pageSize, dto.pageNum * dto.pageSize);
    const rows = await this.rows(page);
    return { total: own.length, rows: rows.map((r) => ({ ...r, current: r.tokenId === auth.tokenHash })) };
  }

  @Post('me/sessions/kickout')
  @HttpCode(200)
  @ApiDoc("End one of the caller's own sessions", { data: null, errors: [ErrorCode.NOT_FOUND] })
  async kickoutMine(@CurrentAuth() auth: AuthContext, @Body() dto: KickoutDto) {
    const session = await this.sessions.byTokenId(dto.tokenId);
    if (!session || session.userId !== auth.session.userId) throw new AppException(ErrorCode.NOT_FOUND);
    await this.sessions.end(dto.tokenId, session.userId, {
      reason: 'kickout',
      session,
      by: { id: auth.session.userId, name: auth.session.username },
    });
  }

  private async rows(page: { tokenHash: string; session: Session }[]): Promise<OnlineSessionRowDto[]> {
    const users = await this.accounts.byIds(page.map((p) => p.session.userId));
    return page.map(({ tokenHash, session }) => ({
      tokenId: tokenHash,
      userId: session.userId,
      username: users.get(session.userId)?.username ?? null,
      name: users.get(session.userId)?.name ?? null,
      ip: session.ip,
      browser: session.browser ?? null,
      os: session.os ?? null,
      loginTime: session.loginTime,
      renewedAt: session.renewedAt ?? null,
      expireAt: session.expireAt,
      temp: session.temp === 1,
    }));
  }
}
