export type { BodyOf, DataOf, Envelope, PostPath } from './api';
export type {
  ActiveToken,
  InactiveToken,
  Introspection,
  IntrospectionCacheOptions,
  LoginInput,
  LoginMfaRequired,
  LoginPolicyClientOptions,
  LoginResult,
  LoginSuccess,
  PublicKey,
} from './client';
export { LoginPolicyClient } from './client';
export { ERROR_CODES, type ErrorCode, type FieldError, LoginPolicyError } from './errors';
export type {
  ExecutionContextLike,
  FastifyReplyLike,
  GuardDecision,
  GuardOptions,
  GuardRequest,
  RefusalEnvelope,
  ServerResponseLike,
} from './guard';
export { callerOf, PermissionGuard, tokenOf } from './guard';
export { encryptPassword } from './password';
export type { components, operations, paths } from './schema';
export { GUARD_REFUSALS, type GuardRefusal, type Language } from './texts';
