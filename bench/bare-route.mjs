// The yardstick of bench item (3): a bare Fastify route doing one store read, in its own process
// like the service, answering the envelope. Started by run.mjs:
//   node bench/bare-route.mjs <port> <redis-url> <key>     one Redis GET of the session key
//   node bench/bare-route.mjs <port> memory <json>         one read of an in-memory Map (embedded mode)
// An optional last argument, a JSON object of response headers, makes the route send them on every
// answer, as a ready object copied by one hook like the service's (bench item 3c: what the service's
// security and no-store headers cost on the wire, the load generator's parsing included).
import Fastify from 'fastify';

import { sessionReader } from './session-reader.mjs';

const [port, where, keyOrValue, headersJson] = process.argv.slice(2);
const reader = await sessionReader(where, keyOrValue);
const app = Fastify({ logger: false });
if (headersJson) {
  const headers = Object.freeze(JSON.parse(headersJson));
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
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
