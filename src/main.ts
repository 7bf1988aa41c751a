import 'reflect-metadata';
import { ConsoleLogger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { setupApp } from './app.setup';
import { createHttpAdapter } from './common/http-adapter';
import { loadConfigOrExplain } from './config/app-config';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

async function bootstrap() {
  const config = loadConfigOrExplain();
  if (!config) process.exit(1);
  const logger = new ConsoleLogger({ json: config.LOG_FORMAT === 'json', logLevels: LEVELS.slice(0, LEVELS.indexOf(config.LOG_LEVEL as LogLevel) + 1) });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config),
    createHttpAdapter(config),
    // Body parsers are ours (setupApp): an empty JSON body is {}, and form bodies are marked for typed fields.
    { logger, bodyParser: false },
  );
  await setupApp(app);
  await app.listen(config.PORT, config.HOST);
  const shown = config.HOST === '0.0.0.0' ? 'localhost' : config.HOST;
  logger.log(`Login policy service listening on http://${shown}:${config.PORT} (API docs: /docs)`, 'Bootstrap');
}

void bootstrap();
