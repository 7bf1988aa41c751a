// The one store read the yardsticks of bench item (3) make: a Redis GET of a real session key, or
// (embedded mode, where the service keeps sessions in its own memory) a Map lookup of a value of
// the same shape.
import { createClient } from 'redis';

export async function sessionReader(where, keyOrValue) {
  if (where === 'memory') {
    const map = new Map([['session', keyOrValue]]);
    return { read: async () => map.get('session') ?? null, close: async () => undefined };
  }
  // As the service's store: no per-command AbortSignal timer (node-redis 6's default), so that the
  // yardstick does not carry a cost the service does not.
  const redis = createClient({ url: where, commandOptions: { timeout: 0 } });
  await redis.connect();
  return { read: () => redis.get(keyOrValue), close: () => redis.close() };
}
