import elEn from 'element-plus/es/locale/lang/en';
import elZhCn from 'element-plus/es/locale/lang/zh-cn';
import { ref } from 'vue';
import { createI18n } from 'vue-i18n';

import { LANG_KEY } from '@/api/request';

import en from './en';
import zh from './zh';

export type Lang = 'zh' | 'en';

const initial: Lang = localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'zh';

export const i18n = createI18n({
  legacy: false,
  locale: initial,
  fallbackLocale: 'zh',
  messages: { zh, en },
});

/** The current language; Element Plus follows it through <el-config-provider>. */
export const lang = ref<Lang>(initial);
export const elementLocale = (l: Lang) => (l === 'en' ? elEn : elZhCn);

export function setLang(l: Lang): void {
  lang.value = l;
  i18n.global.locale.value = l;
  localStorage.setItem(LANG_KEY, l);
  document.documentElement.lang = l === 'en' ? 'en' : 'zh-CN';
}
