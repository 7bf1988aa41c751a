// The yardstick of bench item (3): a bare Fastify route doing one Redis GET, in its own
// process like the service, on the same Redis and the same key shape. Started by run.mjs:
//   node bench/bare-route.mjs <port> <redis-url> <key>
import Fastify from 'fastify';
import { createClient } from 'redis';

const [port, redisUrl, key] = process.argv.slice(2);
const redis = createClient({ url: redisUrl });
await redis.connect();
const app = Fastify({ logger: false });
app.post('/bare', async () => {
  const value = await redis.get(key);
  return { success: true, code: 'OK', message: '', data: value === null ? null : JSON.parse(value) };
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.send?.('ready');
process.on('SIGTERM', async () => {
  await app.close();
  await redis.close();
  process.exit(0);
});
