import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AuthContext } from './session/session.types';

export const IS_PUBLIC = 'auth:public';
export const PERMISSIONS = 'auth:permissions';

/** White-listed: no token needed (spec 5.2). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** Permission codes the caller's roles must grant (spec 5.3); `*` grants all. */
export const RequirePermissions = (...codes: string[]) => SetMetadata(PERMISSIONS, codes);

/** The authenticated caller's token and session, as the token guard attached them. */
export const CurrentAuth = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AuthContext => ctx.switchToHttp().getRequest<FastifyRequest>().auth!,
);
