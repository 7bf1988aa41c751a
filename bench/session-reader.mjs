// The one store read the yardsticks of bench item (3) make: a Redis GET of a real session key, or
// (embedded mode, where the service keeps sessions in its own memory) a Map lookup of a value of
// the same shape.
import { createClient } from 'redis';

export async function sessionReader(where, keyOrValue) {
  if (where === 'memory') {
    const map = new Map([['session', keyOrValue]]);
    return { read: async () => map.get('session') ?? null, close: async () => undefined };
  }
  const redis = createClient({ url: where });
  await redis.connect();
  return { read: () => redis.get(keyOrValue), close: () => redis.close() };
}
