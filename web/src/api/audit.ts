import { download, type Page, post } from './request';
import type { components } from './schema';

/** From the service's OpenAPI document (schema.d.ts, npm run api:types). */
export type AuditRow = components['schemas']['AuditRowDto'];
export type AuditQuery = components['schemas']['ListAuditLogDto'];

export type AuditExportQuery = components['schemas']['ExportAuditLogDto'];

export const listAuditLog = (q: AuditQuery) => post<Page<AuditRow>>('/sys/auditLog/list', q);
/** Every row of the filters as CSV. */
export const exportAuditLog = (q: AuditExportQuery, filename: string) => download('/sys/auditLog/export', q, filename);

export type VerifyResult = components['schemas']['VerifyResultDto'];
/** Seals what was written, then checks the seals of both logs (audited as auditLog.verify). */
export const verifyLogs = () => post<VerifyResult>('/sys/auditLog/verify', {});
