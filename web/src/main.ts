import 'element-plus/dist/index.css';
import './styles.css';

import * as Icons from '@element-plus/icons-vue';
import ElementPlus from 'element-plus';
import { createPinia } from 'pinia';
import { createApp } from 'vue';

import { onReauthRequired, onSessionEnd, onTempTokenForbidden } from './api/request';
import App from './App.vue';
import { askForProof, settleProof } from './composables/useReauth';
import { forgetSession } from './composables/useSessionExpiry';
import { i18n } from './i18n';
import { router } from './router';
import { useAuthStore } from './stores/auth';

const app = createApp(App);
const pinia = createPinia();
app.use(pinia).use(router).use(i18n).use(ElementPlus);
for (const [name, component] of Object.entries(Icons)) app.component(name, component);

// A session that expired, was kicked out or lost its IP: back to the login page with the server's message.
// KICKED_OUT is another login (multiOnline off, maxSessionsPerUser): the server's text says so. An
// administrator's kick-out, lock, disable or reset deletes the session, which then answers NOT_LOGGED_IN
// like an expired one; the console tells them apart by the time its session had left.
onSessionEnd((error) => {
  settleProof(false);
  const auth = useAuthStore(pinia);
  const left = forgetSession();
  const endedByAdmin = error.code === 'NOT_LOGGED_IN' && left !== null && left > 5_000;
  auth.setSessionEndMessage(endedByAdmin ? i18n.global.t('session.endedByAdmin') : error.message);
  auth.clear();
  if (router.currentRoute.value.name !== 'login') void router.replace({ name: 'login' });
});
// A temporary token outside its paths: the password must be changed (or the second factor enrolled) first.
onTempTokenForbidden(() => {
  const page = useAuthStore(pinia).tempPage;
  if (router.currentRoute.value.name !== page) void router.replace({ name: page });
});

// An answer REAUTH_REQUIRED, on any page, asks for the password (or a code) and repeats the request.
onReauthRequired(askForProof);

app.mount('#app');
