import { AppException } from '../common/app.exception';
import { ipAddress } from '../common/client-info';
import type { SessionAuthenticator } from '../session/session-authenticator';
import { INACTIVE_REASONS, InactiveReason, IntrospectionDto } from './dto/introspect.dto';

const isInactiveReason = (code: string): code is InactiveReason =>
  (INACTIVE_REASONS as readonly string[]).includes(code);

/**
 * The state of `token` as a request with it (from `ip`, when given) would find it, renewal included;
 * the token's refusals are `active: false` answers, anything else is thrown. One function for the
 * Nest route and its fast lane (introspection-fast-lane.ts), so that both answer alike.
 */
export async function introspection(
  authenticator: SessionAuthenticator,
  token: string,
  ip: string | undefined,
): Promise<IntrospectionDto> {
  try {
    const { session, permissions } = await authenticator.introspect(
      token,
      ip === undefined ? undefined : ipAddress(ip)!,
    );
    return {
      active: true,
      userId: session.userId,
      username: session.username,
      permissions,
      tempUser: session.temp === 1,
      loginTime: session.loginTime,
      expireAt: session.expireAt,
      mfa: session.mfa === 1,
    };
  } catch (err) {
    if (err instanceof AppException && isInactiveReason(err.code)) return { active: false, reason: err.code };
    throw err;
  }
}
