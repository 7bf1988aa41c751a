import { type Ref, ref } from 'vue';

import { showError } from '@/utils/errors';

/**
 * The state of an unpaged list page (roles, API keys, access rules, webhooks): its rows, whether a
 * load runs, and the load the page calls on mount and after each change. A failed load keeps the
 * rows shown and says why.
 */
export function useList<T>(fetcher: () => Promise<T[]>) {
  const rows = ref<T[]>([]) as Ref<T[]>;
  const loading = ref(false);
  async function load() {
    loading.value = true;
    try {
      rows.value = await fetcher();
    } catch (e) {
      showError(e);
    } finally {
      loading.value = false;
    }
  }
  return { rows, loading, load };
}
