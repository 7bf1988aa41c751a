import { ElMessageBox } from 'element-plus';

import { i18n } from '@/i18n';
import { isCancel, showError } from '@/utils/errors';

/** Ask before an action (ElMessageBox, warning): true when confirmed, false when cancelled. */
export async function confirmed(text: string): Promise<boolean> {
  const { t } = i18n.global;
  try {
    await ElMessageBox.confirm(text, t('common.confirmTitle'), {
      type: 'warning',
      confirmButtonText: t('common.confirm'),
      cancelButtonText: t('common.cancel'),
    });
    return true;
  } catch (e) {
    if (!isCancel(e)) showError(e);
    return false;
  }
}

/**
 * Confirm-then-act: ask, then run the action and show its failure. Resolves true when the
 * action ran (succeeded or not), so the caller reloads; false when the user cancelled.
 */
export async function confirmThen(text: string, action: () => Promise<unknown>): Promise<boolean> {
  if (!(await confirmed(text))) return false;
  try {
    await action();
  } catch (e) {
    showError(e);
  }
  return true;
}
