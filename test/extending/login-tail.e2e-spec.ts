import { Body, Controller, HttpCode, Injectable, Module, Post, Req } from '@nestjs/common';
import { IsString } from 'class-validator';
import type { FastifyRequest } from 'fastify';

import { AuthModule } from '../../src/auth/auth.module';
import {
  LOGIN_STEPS,
  LoginProof,
  LoginService,
  LoginStep,
  NO_MFA,
  StepAttempt,
} from '../../src/auth/login/login.service';
import { AppException } from '../../src/common/app.exception';
import { Public } from '../../src/common/auth-context';
import { clientIp, userAgent } from '../../src/common/client-info';
import { ErrorCode } from '../../src/common/error-code';
import { LoginStatus, LoginTypes } from '../../src/login-log/login-log.entity';
import { UserAccountModule } from '../../src/user-account/user-account.module';
import { UserLookup } from '../../src/user-account/user-lookup.service';
import { BACKENDS } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

/**
 * docs/architecture.md "Extending": what a developer writes to add a way to log in and a step of the login tail,
 * done here exactly so — a test-only module beside the service's own.
 */

/** A test-only way in: one-time codes a help desk hands out, good for one login each. */
@Injectable()
class HelpdeskCodes {
  private readonly codes = new Map<string, string>();
  issue(code: string, userId: string) {
    this.codes.set(code, userId);
  }
  take(code: string): string | undefined {
    const userId = this.codes.get(code);
    this.codes.delete(code);
    return userId;
  }
}

class HelpdeskLoginDto {
  @IsString() code: string;
}

/** The proof of the help-desk way in: the code was taken already, so only the account's state is left. */
const HELPDESK_PROOF: LoginProof = {
  name: 'test.helpdesk',
  async prove(checks) {
    await checks.checkLock();
    await checks.checkDisabled();
  },
};

@Controller('test/helpdesk')
class HelpdeskLoginController {
  constructor(
    private readonly logins: LoginService,
    private readonly accounts: UserLookup,
    private readonly codes: HelpdeskCodes,
  ) {}

  @Post('login')
  @HttpCode(200)
  @Public()
  async login(@Body() dto: HelpdeskLoginDto, @Req() request: FastifyRequest) {
    const userId = this.codes.take(dto.code);
    if (!userId) throw new AppException(ErrorCode.BAD_CREDENTIALS);
    const user = await this.accounts.get(userId);
    const way = {
      loginType: LoginTypes.ACCOUNT,
      account: user.username,
      ip: clientIp(request),
      userAgent: userAgent(request),
      locale: 'zh' as const,
      unusualIpCheck: false,
    };
    // The way in proves what it knows; the tail does the rest (expiry, first login, added steps,
    // multi-device, token, log), under the account's mutex.
    return this.logins.complete(user, way, HELPDESK_PROOF);
  }
}

/** A test-only step of the tail: per user, refuse, demand a password change, or hold the login. */
@Injectable()
class ReviewStep implements LoginStep {
  readonly name = 'test.review';
  readonly refuse = new Set<string>();
  readonly forceChange = new Set<string>();
  readonly hold = new Set<string>();

  async run(attempt: StepAttempt): Promise<void> {
    const name = attempt.user.username;
    if (this.refuse.has(name)) await attempt.fail(LoginStatus.DISABLED, ErrorCode.ACCOUNT_DISABLED);
    if (this.forceChange.has(name)) attempt.requireTemp('INITIAL_PASSWORD_FORCE');
    if (this.hold.has(name))
      attempt.hold({
        accessToken: '',
        tempUser: false,
        forceUpdatePassword: false,
        tip: `review of ${attempt.way.loginType}`,
        ...NO_MFA,
      });
  }
}

@Module({
  imports: [AuthModule, UserAccountModule],
  controllers: [HelpdeskLoginController],
  providers: [HelpdeskCodes, ReviewStep, LOGIN_STEPS.provide(ReviewStep)],
})
class ExtensionModule {}

/** A step whose name another step already has. */
@Injectable()
class ImpostorStep implements LoginStep {
  readonly name = 'mfa';
  async run(): Promise<void> {}
}

@Module({ providers: [ImpostorStep, LOGIN_STEPS.provide(ImpostorStep)] })
class ImpostorModule {}

describe.each(BACKENDS)('extending the login tail on $name', (backend) => {
  let app: TestApp;
  let codes: HelpdeskCodes;
  let review: ReviewStep;
  beforeAll(async () => {
    app = await startApp(backend, { imports: [ExtensionModule] });
    codes = app.app.get(HelpdeskCodes);
    review = app.app.get(ReviewStep);
  });
  afterAll(() => app.close());

  const helpdeskLogin = (code: string) => app.post('/test/helpdesk/login', { code });
  const liveTokens = (userId: string) => app.store.sMembers(`AUTH_USER_TOKENS:${userId}`);

  describe('a new way in', () => {
    it('gets a token, a log row and the multi-device rule from the shared tail', async () => {
      const user = await createActiveUser(app);
      await app.saveLoginStrategy({ multiOnline: false });
      try {
        const first = await app.token(user.username, user.password);
        codes.issue('c-1', user.id);
        const res = await helpdeskLogin('c-1');
        expect(res.body).toMatchObject({
          success: true,
          code: 'OK',
          data: { tempUser: false, forceUpdatePassword: false, tip: '' },
        });
        const token = res.body.data.accessToken;
        expect((await app.post('/sys/me/info', {}, { token })).body.data.username).toBe(user.username);
        // Step 8 ran: the password login's session is kicked out.
        expect((await app.post('/sys/me/info', {}, { token: first })).body.code).toBe('KICKED_OUT');
        const rows = await app.logRows(user.username);
        expect(rows.at(-1)).toMatchObject({ status: 'success', login_type: 'account', user_id: user.id });
        // Single use, as this way in decided.
        expect((await helpdeskLogin('c-1')).body.code).toBe('BAD_CREDENTIALS');
      } finally {
        await app.saveLoginStrategy({ multiOnline: true });
      }
    });

    it('is refused on a locked or disabled account, with its log row', async () => {
      const locked = await createActiveUser(app);
      expect((await app.admin('/sys/user/lock', { id: locked.id })).body.success).toBe(true);
      codes.issue('c-locked', locked.id);
      expect((await helpdeskLogin('c-locked')).body.code).toBe('ACCOUNT_LOCKED');
      expect((await app.logRows(locked.username)).at(-1)).toMatchObject({ status: 'locked' });

      const disabled = await createActiveUser(app);
      expect((await app.admin('/sys/user/disable', { id: disabled.id })).body.success).toBe(true);
      codes.issue('c-disabled', disabled.id);
      expect((await helpdeskLogin('c-disabled')).body.code).toBe('ACCOUNT_DISABLED');
      expect((await app.logRows(disabled.username)).at(-1)).toMatchObject({ status: 'disabled' });
      expect(await liveTokens(locked.id)).toEqual([]);
      expect(await liveTokens(disabled.id)).toEqual([]);
    });
  });

  describe('an added step', () => {
    it('can refuse: the refusal is logged and no session is made', async () => {
      const user = await createActiveUser(app);
      review.refuse.add(user.username);
      const res = await app.login(user.username, user.password);
      expect(res.body).toMatchObject({ success: false, code: 'ACCOUNT_DISABLED' });
      expect((await app.logRows(user.username)).at(-1)).toMatchObject({ status: 'disabled' });
      expect(await liveTokens(user.id)).toEqual([]);
    });

    it('can demand a temporary token, which then reaches only TEMP_URIS', async () => {
      const user = await createActiveUser(app);
      review.forceChange.add(user.username);
      const res = await app.login(user.username, user.password);
      expect(res.body.data).toMatchObject({
        tempUser: true,
        forceUpdatePassword: true,
        tip: '您的密码为初始密码,请修改密码后再登录',
      });
      const token = res.body.data!.accessToken;
      expect((await app.post('/sys/me/info', {}, { token })).body.success).toBe(true);
      expect((await app.post('/sys/message/list', {}, { token })).body.code).toBe('TEMP_TOKEN_FORBIDDEN');
    });

    it('can hold the login: its own answer, no token, no log row — for every way in', async () => {
      const user = await createActiveUser(app);
      review.hold.add(user.username);
      const before = (await app.logRows(user.username)).length;
      const res = await app.login(user.username, user.password);
      expect(res.body).toMatchObject({ success: true, data: { accessToken: '', tip: 'review of account' } });
      codes.issue('c-held', user.id);
      expect((await helpdeskLogin('c-held')).body.data).toMatchObject({ accessToken: '', tip: 'review of account' });
      expect(await liveTokens(user.id)).toEqual([]);
      expect(await app.logRows(user.username)).toHaveLength(before);
    });

    it('runs after the password check: a wrong password never reaches it', async () => {
      const user = await createActiveUser(app);
      review.hold.add(user.username);
      expect((await app.login(user.username, 'Wrong#pass9')).body.code).toBe('BAD_CREDENTIALS');
      expect((await app.logRows(user.username)).at(-1)).toMatchObject({ status: 'passwrong' });
    });
  });

  it('refuses at start a step whose name is taken', async () => {
    await expect(startApp(backend, { provisioned: app.provisioned, imports: [ImpostorModule] })).rejects.toThrow(
      /login step mfa is already in use/,
    );
  });
});
