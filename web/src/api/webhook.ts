import { type Page, type PageQuery, post } from './request';
import type { components } from './schema';

/** From the service's OpenAPI document (schema.d.ts, npm run api:types). */
export type Webhook = components['schemas']['WebhookDto'];
export type SaveWebhook = components['schemas']['SaveWebhookDto'];
export type SavedWebhook = components['schemas']['SavedWebhookDto'];
export type WebhookDelivery = components['schemas']['WebhookDeliveryDto'];
export type WebhookEvent = Webhook['events'][number];

/** Every event a webhook may subscribe to, in the service's order. */
export const WEBHOOK_EVENTS: WebhookEvent[] = [
  'login.succeeded',
  'login.failed',
  'account.locked',
  'account.unlocked',
  'account.disabled',
  'account.enabled',
  'account.deleted',
  'password.changed',
  'password.reset',
  'session.ended',
  'mfa.changed',
];

export const listWebhooks = () => post<Webhook[]>('/sys/webhook/list');
/** Creating answers the signing secret, this once. */
export const saveWebhook = (w: SaveWebhook) => post<SavedWebhook>('/sys/webhook/save', w);
export const deleteWebhook = (id: string) => post('/sys/webhook/delete', { id });
export const listDeliveries = (id: string, page: PageQuery) =>
  post<Page<WebhookDelivery>>('/sys/webhook/deliveries', { id, ...page });
export const sendTestEvent = (id: string) => post<{ messageId: string }>('/sys/webhook/test', { id });
