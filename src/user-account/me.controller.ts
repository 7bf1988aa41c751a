import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import { ApiBody, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';

import { ApiDoc } from '../common/api-docs';
import { validationFailed } from '../common/app.exception';
import type { AuthContext, SessionProfile } from '../common/auth-context';
import { authOf, CurrentAuth } from '../common/auth-context';
import { AllowsTempToken } from '../common/auth-context';
import { clientIp, userAgent } from '../common/client-info';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { checkNoInput, NoInputDto } from '../common/validation.pipe';
import { AppConfig } from '../config/app-config';
import { PasswordTransport } from '../crypto/password-transport';
import { PiiCipher } from '../pii/pii-cipher';
import { StrategyService } from '../strategy/strategy.service';
import { ChangePasswordDto, ME_INFO_RESPONSE, MeInfoDto, ReauthDto, ReauthResultDto } from './dto/user.dto';
import { PasswordChangeService } from './password-change.service';
import { ReauthService } from './reauth.service';

/** The caller's own account; reachable with a temporary token too (TEMP_URIS). */
@ApiTags('me')
@ApiSecurity('Admin-Token')
@Controller('sys/me')
export class MeController {
  constructor(
    private readonly rsa: PasswordTransport,
    private readonly passwords: PasswordChangeService,
    private readonly reauth: ReauthService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly strategy: StrategyService,
    private readonly pii: PiiCipher,
  ) {}

  /**
   * A session profile's mobile and e-mail in plain text, opened once per profile object: the console
   * polls this route, opening a sealed value costs more than the rest of the answer
   * (docs/benchmarks.md), and SessionService hands every request of a token the same frozen profile
   * while the stored session is unchanged. Held no longer than SessionService holds that profile.
   */
  private readonly opened = new WeakMap<SessionProfile, { mobile: string | null; email: string | null }>();

  @Post('info')
  @HttpCode(200)
  @ApiDoc("The caller's account, permission codes and session", { data: MeInfoDto })
  @ApiBody({ type: NoInputDto })
  @RouteSchema({ response: ME_INFO_RESPONSE })
  async info(@Req() request: FastifyRequest) {
    // The console's polling route and the bench's hot path: the caller and the empty body are read
    // here rather than through Nest's parameter pipes, whose promise chain per parameter is a
    // visible share of this route's instructions a request (bench:instructions counts them).
    checkNoInput(request.body);
    const auth = authOf(request);
    // From the session, which carries the profile (one round trip, no SQL: the console polls this route).
    const { session } = auth;
    const { profile } = session;
    // Sealed in the session as in the row (a login opens nothing): opened here, where they are shown.
    let contact = this.opened.get(profile);
    if (!contact) {
      contact = { mobile: this.pii.reveal(profile.mobile), email: this.pii.reveal(profile.email) };
      this.opened.set(profile, contact);
    }
    return {
      id: session.userId,
      username: session.username,
      name: profile.name,
      mobile: contact.mobile,
      email: contact.email,
      permissions: auth.permissions,
      tempUser: auth.session.temp === 1,
      // From the session (written at login and on enable/disable/reset), no SQL.
      mfaEnabled: session.profile.mfaEnabled === true,
      // The console warns before the session ends. expireAt is after this request's renewal;
      // serverTime lets it measure what is left on the service's clock, not the browser's.
      expireAt: session.expireAt,
      serverTime: this.clock.nowMs(),
      // The console shows times in the zone the service's notifications use.
      displayTimeZone: this.config.DISPLAY_TIMEZONE,
      // The console keeps roles within one administrator set in three mode.
      adminMode: this.config.ADMIN_MODE,
      // The two-factor page says whether logins ask for a code at all (from the strategy's cache).
      mfaMode: (await this.strategy.loginStrategy()).mfaMode,
    };
  }

  @Post('pass/update')
  @HttpCode(200)
  @ApiDoc("Change the caller's own password (ends the caller's other sessions)", {
    data: null,
    errors: [
      ErrorCode.OLD_PASSWORD_WRONG,
      ErrorCode.PASSWORD_TOO_SHORT,
      ErrorCode.PASSWORD_TOO_LONG,
      ErrorCode.PASSWORD_NEEDS_DIGIT,
      ErrorCode.PASSWORD_NEEDS_UPPER,
      ErrorCode.PASSWORD_NEEDS_LOWER,
      ErrorCode.PASSWORD_NEEDS_SYMBOL,
      ErrorCode.PASSWORD_CONTAINS_ACCOUNT,
      ErrorCode.PASSWORD_TOO_COMMON,
      ErrorCode.PASSWORD_REUSED,
      ErrorCode.RATE_LIMITED,
    ],
  })
  async updatePassword(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: ChangePasswordDto,
    @Req() request: FastifyRequest,
  ) {
    await this.passwords.changeOwn({
      userId: auth.session.userId,
      tokenHash: auth.tokenHash,
      oldPass: this.rsa.decrypt('oldPass', dto.oldPass),
      newPass: this.rsa.decrypt('newPass', dto.newPass),
      ip: clientIp(request),
      userAgent: userAgent(request),
    });
  }

  /**
   * A fresh proof for this session. Temporary tokens may ask too: one made by a QR
   * code (password expiry, mfaMode 2) proves the password here before it enrols.
   */
  @Post('reauth')
  @HttpCode(200)
  @AllowsTempToken()
  @ApiDoc(
    'Prove the password (or a second-factor code) again: the session counts as freshly proven for reauthMinutes',
    {
      data: ReauthResultDto,
      errors: [ErrorCode.BAD_CREDENTIALS, ErrorCode.MFA_CODE_INVALID, ErrorCode.ACCOUNT_LOCKED],
    },
  )
  reauthenticate(@CurrentAuth() auth: AuthContext, @Body() dto: ReauthDto, @Req() request: FastifyRequest) {
    if ((dto.password === undefined) === (dto.code === undefined)) {
      throw validationFailed('validation.passwordOrCode', dto.password === undefined ? 'password' : 'code');
    }
    const caller = {
      userId: auth.session.userId,
      tokenHash: auth.tokenHash,
      ip: clientIp(request),
      userAgent: userAgent(request),
    };
    return dto.password !== undefined
      ? this.reauth.withPassword(caller, this.rsa.decrypt('password', dto.password))
      : this.reauth.withCode(caller, dto.code!);
  }
}
