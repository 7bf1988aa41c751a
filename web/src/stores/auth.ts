import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

import type { LoginResult, MeInfo } from '@/api/auth';
import * as authApi from '@/api/auth';
import { getToken, removeToken, setToken } from '@/api/request';
import { setDisplayTimeZone } from '@/utils/format';

import { useMessageStore } from './messages';

const END_MESSAGE_KEY = 'sessionEndMessage';
/** Set while the session is a temporary token for enrolling a second factor (mfaMode 2). */
const MFA_SETUP_KEY = 'Admin-MfaSetup';

/**
 * The signed-in user: who they are, what they may do. The token itself lives in one place only,
 * localStorage (request.ts reads it there for every call); `hasToken` asks it, so a session ended
 * by the request wrapper or another tab is never contradicted by a copy here.
 */
export const useAuthStore = defineStore('auth', () => {
  const me = ref<MeInfo | null>(null);
  /** The login's tip, shown once on the next page. */
  const loginTip = ref('');
  /** The server's message that ended the session, shown on the login page (survives the reload). */
  const sessionEndMessage = ref(sessionStorage.getItem(END_MESSAGE_KEY) ?? '');

  /**
   * This temporary token is for enrolling a second factor (mfaMode 2), not for a password
   * change. When the login forced both, the password change comes first and this stays false: the
   * next login, with the new password, asks for the enrolment. Kept beside the token (a reload keeps it).
   */
  const mfaSetupRequired = ref(localStorage.getItem(MFA_SETUP_KEY) === '1');

  const tempUser = computed(() => !!me.value?.tempUser);
  /** The one page a temporary session is sent to. */
  const tempPage = computed<'mfa' | 'password'>(() => (mfaSetupRequired.value ? 'mfa' : 'password'));
  const permissions = computed(() => new Set(me.value?.permissions ?? []));
  /** ADMIN_MODE=three (三员分立): roles and a user's roles stay within one administrator set. */
  const threeAdmins = computed(() => me.value?.adminMode === 'three');

  /**
   * Nobody grants more than they hold: true when the user holds every one of `codes`
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
    setMfaSetupRequired(!!(result.tempUser && result.mfaSetupRequired && !result.forceUpdatePassword));
    loginTip.value = result.tip ?? '';
    setSessionEndMessage('');
    await fetchMe();
  }

  async function fetchMe(): Promise<MeInfo> {
    me.value = await authApi.getMeInfo();
    // Times as the service's notifications write them (DISPLAY_TIMEZONE).
    setDisplayTimeZone(me.value.displayTimeZone);
    return me.value;
  }

  function setMfaSetupRequired(value: boolean): void {
    mfaSetupRequired.value = value;
    if (value) localStorage.setItem(MFA_SETUP_KEY, '1');
    else localStorage.removeItem(MFA_SETUP_KEY);
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
    setMfaSetupRequired(false);
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

  return {
    hasToken,
    me,
    loginTip,
    sessionEndMessage,
    tempUser,
    mfaSetupRequired,
    tempPage,
    threeAdmins,
    can,
    holdsAll,
    signIn,
    fetchMe,
    setSessionEndMessage,
    clear,
    signOut,
  };
});
