import { onMounted, reactive, ref, shallowRef } from 'vue';

import type { Page, PageQuery } from '@/api/request';
import { showError } from '@/utils/errors';

/**
 * The state of a paged list page: rows, total, paging and loading, and the calls the
 * toolbar and pager make. The fetcher gets the paging and adds the page's own filters.
 * Loads once when the component mounts.
 */
export function usePagedList<T>(fetcher: (query: PageQuery) => Promise<Page<T>>, { pageSize = 20 } = {}) {
  const paging = reactive<PageQuery>({ pageNum: 1, pageSize });
  const rows = shallowRef<T[]>([]);
  const total = ref(0);
  const loading = ref(false);

  /** Loads overlap (a search while a live update reloads, quick paging): only the newest one writes. */
  let latest = 0;
  async function load() {
    const mine = ++latest;
    loading.value = true;
    try {
      const page = await fetcher({ pageNum: paging.pageNum, pageSize: paging.pageSize });
      if (mine !== latest) return;
      rows.value = page.rows;
      total.value = page.total;
    } catch (e) {
      if (mine === latest) showError(e);
    } finally {
      if (mine === latest) loading.value = false;
    }
  }

  /** New filters: back to the first page. */
  function search() {
    paging.pageNum = 1;
    void load();
  }

  onMounted(load);

  return { paging, rows, total, loading, load, search };
}
