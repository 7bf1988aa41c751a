// The yardstick of bench item (3): a bare Fastify route doing one store read, in its own process
// like the service, answering the envelope. Started by run.mjs:
//   node bench/bare-route.mjs <port> <redis-url> <key>     one Redis GET of the session key
//   node bench/bare-route.mjs <port> memory <json>         one read of an in-memory Map (embedded mode)
import Fastify from 'fastify';
import { sessionReader } from './session-reader.mjs';

const [port, where, keyOrValue] = process.argv.slice(2);
const reader = await sessionReader(where, keyOrValue);
const app = Fastify({ logger: false });
app.post('/bare', async () => {
  const value = await reader.read();
  return { success: true, code: 'OK', message: '', data: value === null ? null : JSON.parse(value) };
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.send?.('ready');
process.on('SIGTERM', async () => {
  await app.close();
  await reader.close();
  process.exit(0);
});
