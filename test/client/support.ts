import { LoginPolicyClient, type LoginPolicyClientOptions } from '../../client/src';
import { TestApp } from '../support/test-app';

let keys = 0;

/** An API key for a downstream service, made by the admin: its id and the key itself (shown once). */
export async function createApiKey(app: TestApp, permissions: string[]): Promise<{ id: string; key: string }> {
  keys += 1;
  const res = await app.admin('/sys/apiKey/create', { name: `downstream-${keys}`, permissions });
  if (!res.body.success) throw new Error(`API key create failed: ${res.body.code} ${res.body.message}`);
  return res.body.data;
}

/**
 * A client of the running app whose clock the test moves, and which counts the introspection
 * requests that reach the service.
 */
export function countingClient(url: string, options: Partial<LoginPolicyClientOptions> = {}) {
  const clock = { now: Date.now() };
  const counter = { introspections: 0 };
  const client = new LoginPolicyClient({
    baseUrl: url,
    now: () => clock.now,
    fetch: (input, init) => {
      if (String(input).endsWith('/sys/token/introspect')) counter.introspections += 1;
      return globalThis.fetch(input, init);
    },
    ...options,
  });
  return { client, clock, counter };
}
