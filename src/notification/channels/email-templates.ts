import { Injectable } from '@nestjs/common';
import type Handlebars from 'handlebars';

import { atFirstUse } from '../../common/at-first-use';
import { type Locale, text } from '../../common/texts';
import { NotificationContent } from '../notification-content';

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

/*
 * The templates live in code rather than in .hbs files: the build (nest build,
 * the Dockerfile) copies only compiled TypeScript into dist, and a template
 * that is missing at run time would only show when the first mail is due.
 */
const HTML: Record<Locale, string> = {
  zh: `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>{{title}}</title></head>
<body style="font-family:-apple-system,'PingFang SC','Microsoft YaHei',sans-serif;color:#222;line-height:1.6">
  <h2 style="margin:0 0 12px">{{title}}</h2>
  <p>{{greeting}}</p>
  <p><strong>{{lead}}</strong></p>
  <table cellpadding="6" style="border-collapse:collapse">
    {{#each fields}}<tr><td style="color:#666">{{label}}</td><td>{{value}}</td></tr>{{/each}}
  </table>
  <p>{{advice}}</p>
  <p style="color:#999;font-size:12px">{{footer}}</p>
</body></html>`,
  en: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{title}}</title></head>
<body style="font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#222;line-height:1.6">
  <h2 style="margin:0 0 12px">{{title}}</h2>
  <p>{{greeting}}</p>
  <p><strong>{{lead}}</strong></p>
  <table cellpadding="6" style="border-collapse:collapse">
    {{#each fields}}<tr><td style="color:#666">{{label}}</td><td>{{value}}</td></tr>{{/each}}
  </table>
  <p>{{advice}}</p>
  <p style="color:#999;font-size:12px">{{footer}}</p>
</body></html>`,
};

const TEXT: Record<Locale, string> = {
  zh: `{{greeting}}

{{lead}}
{{#each fields}}
{{label}}:{{value}}
{{/each}}

{{advice}}

{{footer}}
`,
  en: `{{greeting}}

{{lead}}
{{#each fields}}
{{label}}: {{value}}
{{/each}}

{{advice}}

{{footer}}
`,
};

type Template = Handlebars.TemplateDelegate<NotificationContent & { greeting: string; footer: string }>;

/**
 * Handlebars templates of the e-mail channel, zh (default) and en, compiled once, at the first
 * mail: an instance without SMTP never loads Handlebars.
 */
@Injectable()
export class EmailTemplates {
  private readonly templates = atFirstUse((): Record<'html' | 'text', Record<Locale, Template>> => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const hbs = (require('handlebars') as typeof Handlebars).create();
    // strict: a field the template names but the content lacks is an error, not a blank.
    return {
      html: { zh: hbs.compile(HTML.zh, { strict: true }), en: hbs.compile(HTML.en, { strict: true }) },
      text: {
        zh: hbs.compile(TEXT.zh, { strict: true, noEscape: true }),
        en: hbs.compile(TEXT.en, { strict: true, noEscape: true }),
      },
    };
  });

  render(content: NotificationContent, recipientName: string, locale: Locale = 'zh'): RenderedMail {
    // The greeting and footer come from the catalogue (texts.ts); the templates only lay them out.
    const context = {
      ...content,
      greeting: text('notification.mailGreeting', locale, { name: recipientName }),
      footer: text('notification.mailFooter', locale),
    };
    const { html, text: plain } = this.templates();
    return { subject: content.title, html: html[locale](context), text: plain[locale](context) };
  }
}
