import { ConsoleLogger } from '@nestjs/common';
import { StartFailure } from './start-failure';

/**
 * Nest's ConsoleLogger (LOG_FORMAT text or json, LOG_LEVEL) that writes a StartFailure as the one
 * line it is meant to be. Nest's ExceptionHandler logs whatever ends the module initialisation
 * as an Error, stack and all; main.ts logs the listen errors here too.
 */
export class ServiceLogger extends ConsoleLogger {
  override error(message: unknown, ...optionalParams: unknown[]) {
    if (message instanceof StartFailure) return super.error(`Cannot start: ${message.message}`, 'Start');
    // app.listen() logs its error ("Error: listen EADDRINUSE: …") before it rejects; main.ts turns
    // the rejection into the StartFailure line, so this would be a second line about one failure.
    if (optionalParams.at(-1) === 'NestApplication' && typeof message === 'string' && message.startsWith('Error: listen ')) return;
    return super.error(message, ...optionalParams);
  }
}
