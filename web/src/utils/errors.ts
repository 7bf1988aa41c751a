import { ElMessage } from 'element-plus';

import { ApiError, SESSION_END_CODES } from '@/api/request';

/** Show a failed call's message (the server's, verbatim); a session end was already handled. */
export function showError(error: unknown): void {
  if (error instanceof ApiError && (SESSION_END_CODES.has(error.code) || error.code === 'TEMP_TOKEN_FORBIDDEN')) return;
  ElMessage.error(error instanceof Error ? error.message : String(error));
}

/** ElMessageBox rejects when the user cancels: that is not an error. */
export const isCancel = (error: unknown) => error === 'cancel' || error === 'close';
