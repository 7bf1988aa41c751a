import { ElMessage } from 'element-plus';

import { i18n } from '@/i18n';

/**
 * Copies text and says so. A browser without clipboard access (plain http, a denied permission)
 * copies nothing but still shows the text selectable, so the message is shown either way.
 */
export async function copyText(text: string): Promise<void> {
  await navigator.clipboard?.writeText(text).catch(() => {});
  ElMessage.success(i18n.global.t('common.copied'));
}
