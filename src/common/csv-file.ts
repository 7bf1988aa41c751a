import type { Readable } from 'node:stream';

import { Logger, StreamableFile } from '@nestjs/common';

const logger = new Logger('Export');

/**
 * A CSV stream as the answer of an export: `text/csv; charset=utf-8`, offered for download as
 * `<name>.csv`. Headers are out once the first byte is: a database failure half-way ends the
 * connection (the client sees a broken download, never a truncated file passed off as complete),
 * and only the error's class is logged (no SQL, no filter values).
 */
export function csvFile(stream: Readable, name: string): StreamableFile {
  return new StreamableFile(stream, {
    type: 'text/csv; charset=utf-8',
    disposition: `attachment; filename="${name}.csv"`,
  }).setErrorLogger(exportErrorLogger(name));
}

/** Logs an export that broke off: only the error's class (no SQL, no filter values). */
export function exportErrorLogger(name: string) {
  return (err: unknown) => logger.error(`${name} export broke off: ${(err as Error)?.constructor?.name ?? typeof err}`);
}
