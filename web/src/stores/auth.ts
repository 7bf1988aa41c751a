import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import * as authApi from '@/api/auth';
import type { LoginResult, MeInfo } from '@/api/auth';
import { getToken, removeToken, setToken } from '@/api/request';
import { useMessageStore } from './messages';

const END_MESSAGE_KEY = 'sessionEndMessage';

/**
 * The signed-in user: who they are, what they may do. The token itself lives in one place only,
 * localStorage (request.ts reads it there for every call); `hasToken` asks it, so a session ended
 * by the request wrapper or another tab is never contradicted by a copy here.
 */
export const useAuthStore = defineStore('auth', () => {
  const me = ref<MeInfo | null>(null);
  /** The login's tip (spec 2.3), shown once on the next page. */
  const loginTip = ref('');
  /** The server's message that ended the session, shown on the login page (survives the reload). */
  const sessionEndMessage = ref(sessionStorage.getItem(END_MESSAGE_KEY) ?? '');

  const tempUser = computed(() => !!me.value?.tempUser);
  const permissions = computed(() => new Set(me.value?.permissions ?? []));

  /**
   * Contract §11, nobody grants more than they hold: true when the user holds every one of `codes`
   * ('*' holds all). The server refuses the rest; the console does not offer them.
   */
  function holdsAll(codes: readonly string[]): boolean {
    return permissions.value.has('*') || codes.every((c) => permissions.value.has(c));
  }

  /** '*' holds every permission; several codes: any of them. */
  function can(...codes: string[]): boolean {
    if (permissions.value.has('*')) return true;
    return codes.length === 0 || codes.some((c) => permissions.value.has(c));
  }

  async function signIn(result: LoginResult): Promise<void> {
    // Null only while a second factor is pending (mfaRequired): that result is not a sign-in yet.
    if (result.accessToken === null) throw new Error('the login waits for its second factor');
    setToken(result.accessToken);
    loginTip.value = result.tip ?? '';
    setSessionEndMessage('');
    await fetchMe();
  }

  async function fetchMe(): Promise<MeInfo> {
    me.value = await authApi.getMeInfo();
    return me.value;
  }

  function setSessionEndMessage(message: string): void {
    sessionEndMessage.value = message;
    if (message) sessionStorage.setItem(END_MESSAGE_KEY, message);
    else sessionStorage.removeItem(END_MESSAGE_KEY);
  }

  /** Forget the session locally (the server already ended it, or will). */
  function clear(): void {
    useMessageStore().stop();
    removeToken();
    me.value = null;
    loginTip.value = '';
  }

  async function signOut(): Promise<void> {
    try {
      await authApi.logout();
    } catch {
      // Already gone on the server: nothing more to end.
    }
    clear();
  }

  const hasToken = (): boolean => getToken() !== null;

  return { hasToken, me, loginTip, sessionEndMessage, tempUser, can, holdsAll, signIn, fetchMe, setSessionEndMessage, clear, signOut };
});
