import 'reflect-metadata';

import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';

import { AppModule } from './app.module';
import { setupApp } from './app.setup';
import { createHttpAdapter } from './common/http-adapter';
import { loggerParams, ServiceLogger } from './common/service-logger';
import { listenFailure } from './common/start-failure';
import { loadConfigOrExplain } from './config/app-config';

async function bootstrap() {
  const config = loadConfigOrExplain();
  if (!config) process.exit(1);
  // Built before Nest, so that what ends the start (the StartFailure line) goes through it too.
  const logger = ServiceLogger.create(loggerParams(config));
  const adapter = createHttpAdapter(config);
  logger.logRequests(adapter.getInstance());
  // abortOnError false: a failed start exits with 1 instead of process.abort() (a core dump, 134).
  // Nest has logged why (a StartFailure as its one line) before the promise rejects.
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config),
    adapter,
    // Body parsers are ours (setupApp): an empty JSON body is {}, and form bodies are marked for typed fields.
    { logger, bodyParser: false, abortOnError: false },
  ).catch(() => null);
  if (!app) process.exit(1);
  try {
    await setupApp(app);
    await app.listen(config.PORT, config.HOST);
  } catch (err) {
    logger.error(listenFailure(err, config.HOST, config.PORT) ?? err);
    // Closed, so that the database is left as a stop leaves it (SQLite checkpoints its WAL); bounded.
    await Promise.race([app.close(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]).catch(
      () => undefined,
    );
    process.exit(1);
  }
  const shown = config.HOST === '0.0.0.0' ? 'localhost' : config.HOST;
  // Only now: the port is bound, so "started" is true when it is read.
  logger.log(
    `Login policy service started, listening on http://${shown}:${config.PORT} (API docs: /docs)`,
    'Bootstrap',
  );
}

void bootstrap();
