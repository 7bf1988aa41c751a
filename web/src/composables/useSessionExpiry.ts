import { computed, onBeforeUnmount, onMounted, ref, watch } from 'vue';

import type { MeInfo } from '@/api/auth';
import { getToken, onTokenCallAnswered } from '@/api/request';
import { useAuthStore } from '@/stores/auth';

/** Warn this long before the end at most (a quarter of the validity when that is shorter). */
const WARN_MS = 5 * 60_000;

/*
 * What the console knows of its session's end. /sys/me/info answers the session's
 * `expireAt` and the service's clock (`serverTime`), so what is left is measured on the service's
 * clock, not the browser's. Any call renews a session with less than half its validity left;
 * the model follows that for the calls made since (the validity is the longest time left
 * ever seen, i.e. right after a login or renewal). Nothing here calls the service on its own: an idle
 * console lets its session expire, as it should.
 */
const expireAt = ref<number | null>(null);
let offset = 0;
let validity = 0;
let trackedToken: string | null = null;
const serverNow = (browserMs: number) => browserMs + offset;

/** Records what /sys/me/info answered (the login, a reload, "stay logged in"). */
export function trackSession(me: MeInfo | null): void {
  if (!me || typeof me.expireAt !== 'number') return;
  // Another session (a new login): its validity is measured afresh.
  if (getToken() !== trackedToken) validity = 0;
  trackedToken = getToken();
  offset = me.serverTime - Date.now();
  expireAt.value = me.expireAt;
  validity = Math.max(validity, me.expireAt - me.serverTime);
}

// A call sent with less than half the validity left renewed the session on the service.
onTokenCallAnswered((sentAt) => {
  if (expireAt.value === null || !validity) return;
  const at = serverNow(sentAt);
  if (expireAt.value - at < validity / 2) expireAt.value = Math.max(expireAt.value, at + validity);
});

/**
 * Time the session had left by the model when it ended (ms; null when unknown), then forgets it.
 * An end with time left was not an expiry: an administrator (kick-out, lock, disable, reset) or the
 * user elsewhere (My devices, a password change) ended it. The service answers NOT_LOGGED_IN to both.
 */
export function forgetSession(): number | null {
  const left = expireAt.value === null ? null : expireAt.value - serverNow(Date.now());
  expireAt.value = null;
  return left;
}

/** The warning before the end, for the layout; "stay logged in" asks /sys/me/info, which renews. */
export function useSessionExpiry() {
  const auth = useAuthStore();
  const now = ref(Date.now());
  const extending = ref(false);
  /** "Stay logged in" could not move the end (the absolute lifetime). */
  const notExtended = ref(false);

  const remaining = computed(() => (expireAt.value === null ? null : expireAt.value - serverNow(now.value)));
  const warning = computed(
    () =>
      !auth.tempUser &&
      remaining.value !== null &&
      remaining.value > 0 &&
      remaining.value <= Math.min(WARN_MS, validity / 4),
  );

  watch(
    () => auth.me,
    (me) => {
      trackSession(me);
      now.value = Date.now();
    },
    { immediate: true, flush: 'sync' },
  );

  let timer: ReturnType<typeof setInterval> | undefined;
  onMounted(() => {
    timer = setInterval(() => {
      now.value = Date.now();
    }, 1000);
  });
  onBeforeUnmount(() => clearInterval(timer));

  async function stayLoggedIn(): Promise<void> {
    extending.value = true;
    const before = expireAt.value;
    try {
      await auth.fetchMe();
      notExtended.value = expireAt.value === before;
    } catch {
      // A session already over: the request wrapper took the console to the login page.
    } finally {
      extending.value = false;
    }
  }

  /** m:ss left, for the warning's text. */
  const left = computed(() => {
    const s = Math.max(0, Math.ceil((remaining.value ?? 0) / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  });

  return { warning, left, extending, notExtended, stayLoggedIn };
}
