import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../../common/app.exception';
import { ErrorCode } from '../../common/error-code';
import { PERMISSIONS } from '../../common/auth-context';

/** Spec 5.3: the permission codes of @RequirePermissions, against the token's permission cache (read with the session). */
@Injectable()
export class PermissionGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const required = this.reflector.getAllAndOverride<string[]>(PERMISSIONS, [context.getHandler(), context.getClass()]);
    if (!required?.length) return true;
    const auth = context.switchToHttp().getRequest<FastifyRequest>().auth;
    if (!auth) throw new AppException(ErrorCode.NOT_LOGGED_IN);
    const granted = new Set(auth.permissions);
    if (granted.has('*') || required.every((code) => granted.has(code))) return true;
    throw new AppException(ErrorCode.FORBIDDEN);
  }
}
