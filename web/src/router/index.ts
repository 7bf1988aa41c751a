import { createRouter, createWebHistory, type RouteRecordRaw } from 'vue-router';

import AppLayout from '@/layout/AppLayout.vue';
import { useAuthStore } from '@/stores/auth';
import { useMessageStore } from '@/stores/messages';

declare module 'vue-router' {
  interface RouteMeta {
    /** i18n key of the page title */
    title?: string;
    /** any one of these permission codes opens the page; none listed: every logged-in user */
    perms?: string[];
    /** reachable without a session */
    public?: boolean;
  }
}

/** The pages of the menu, in menu order; `/` opens the first one the user may see. */
export const pages: RouteRecordRaw[] = [
  {
    path: '/dashboard',
    name: 'dashboard',
    component: () => import('@/views/home/DashboardView.vue'),
    // Every logged-in user: the page shows the blocks the user's codes read.
    meta: { title: 'menu.dashboard' },
  },
  {
    path: '/system/strategy',
    name: 'strategy',
    component: () => import('@/views/system/StrategyView.vue'),
    meta: { title: 'menu.strategy', perms: ['sys:strategy:login:info', 'sys:strategy:user:info'] },
  },
  {
    path: '/system/users',
    name: 'users',
    component: () => import('@/views/system/UsersView.vue'),
    meta: { title: 'menu.users', perms: ['sys:user:list'] },
  },
  {
    path: '/system/roles',
    name: 'roles',
    component: () => import('@/views/system/RolesView.vue'),
    meta: { title: 'menu.roles', perms: ['sys:role:list'] },
  },
  {
    path: '/system/apikeys',
    name: 'apikeys',
    component: () => import('@/views/system/ApiKeysView.vue'),
    meta: { title: 'menu.apikeys', perms: ['sys:apiKey:list'] },
  },
  {
    path: '/system/accessrules',
    name: 'accessrules',
    component: () => import('@/views/system/AccessRulesView.vue'),
    meta: { title: 'menu.accessrules', perms: ['sys:accessRule:list'] },
  },
  {
    path: '/system/loginlog',
    name: 'loginlog',
    component: () => import('@/views/system/LoginLogView.vue'),
    meta: { title: 'menu.loginlog', perms: ['sys:loginLog:list'] },
  },
  {
    path: '/system/online',
    name: 'online',
    component: () => import('@/views/system/OnlineView.vue'),
    meta: { title: 'menu.online', perms: ['sys:online:list'] },
  },
  {
    path: '/system/auditlog',
    name: 'auditlog',
    component: () => import('@/views/system/AuditLogView.vue'),
    meta: { title: 'menu.auditlog', perms: ['sys:auditLog:list'] },
  },
  {
    path: '/system/webhooks',
    name: 'webhooks',
    component: () => import('@/views/system/WebhooksView.vue'),
    meta: { title: 'menu.webhooks', perms: ['sys:webhook:list'] },
  },
  {
    path: '/profile',
    name: 'profile',
    component: () => import('@/views/me/ProfileView.vue'),
    meta: { title: 'menu.profile' },
  },
  {
    path: '/me/devices',
    name: 'devices',
    component: () => import('@/views/me/DevicesView.vue'),
    meta: { title: 'menu.devices' },
  },
  {
    path: '/me/mfa',
    name: 'mfa',
    component: () => import('@/views/me/MfaView.vue'),
    meta: { title: 'menu.mfa' },
  },
  {
    path: '/messages',
    name: 'messages',
    component: () => import('@/views/messages/MessagesView.vue'),
    meta: { title: 'menu.messages' },
  },
];

const routes: RouteRecordRaw[] = [
  { path: '/login', name: 'login', component: () => import('@/views/login/LoginView.vue'), meta: { public: true } },
  {
    path: '/forgot',
    name: 'forgot',
    component: () => import('@/views/login/ForgotPasswordView.vue'),
    meta: { public: true },
  },
  {
    path: '/',
    component: AppLayout,
    children: [
      { path: '', name: 'home', component: { render: () => null } },
      ...pages,
      {
        path: '/password',
        name: 'password',
        component: () => import('@/views/password/PasswordView.vue'),
        meta: { title: 'menu.password' },
      },
    ],
  },
  { path: '/:pathMatch(.*)*', redirect: '/' },
];

export const router = createRouter({ history: createWebHistory(import.meta.env.BASE_URL), routes });

router.beforeEach(async (to) => {
  const auth = useAuthStore();
  if (to.meta.public) return true;
  if (!auth.hasToken()) return { name: 'login' };
  if (!auth.me) {
    try {
      await auth.fetchMe();
    } catch {
      // A session that ended was handled by the request wrapper; any other failure: log in again.
      if (!auth.hasToken()) return { name: 'login' };
      auth.clear();
      return { name: 'login' };
    }
  }
  // A temporary token may only change the password, or enrol the second factor it was
  // given for (mfaMode 2; it may change its password too).
  if (auth.tempUser) return to.name === auth.tempPage || to.name === 'password' ? true : { name: auth.tempPage };
  useMessageStore().start();
  if (to.name === 'home') {
    const first = pages.find((p) => auth.can(...(p.meta?.perms ?? [])));
    return { path: first?.path ?? '/password' };
  }
  if (to.meta.perms && !auth.can(...to.meta.perms)) return { name: 'home' };
  return true;
});
