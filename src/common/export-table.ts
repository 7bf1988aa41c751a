import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';

import { StreamableFile } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';

import { csvStream, neutralised } from './csv';
import { csvFile, exportErrorLogger } from './csv-file';
import { formatLocalTime } from './display-time';
import { excel } from './excel';
import { Optional } from './optional';
import { type Bilingual, type Locale, text, type TextKey, TEXTS } from './texts';

export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const EXPORT_COLUMNS = ['labels', 'fields'] as const;
export type ExportColumns = (typeof EXPORT_COLUMNS)[number];

/** What every export takes besides its list's filters. */
export class ExportOptionsDto {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'csv', description: 'csv (UTF-8 with BOM) or xlsx' })
  @Optional()
  @IsIn(EXPORT_FORMATS)
  format?: ExportFormat;

  @ApiPropertyOptional({
    enum: EXPORT_COLUMNS,
    default: 'labels',
    description:
      "labels: for people (headers in the request's language, codes as their labels, times as yyyy-MM-dd HH:mm:ss in DISPLAY_TIMEZONE, named in the time headers, which come last); fields: for scripts (the row field names, raw codes, ISO 8601 UTC)",
  })
  @Optional()
  @IsIn(EXPORT_COLUMNS)
  columns?: ExportColumns;
}

/** One column of an export: its row field, its header for people, and how people read its value. */
export interface ExportColumn<R> {
  field: string;
  label: TextKey;
  value: (row: R) => unknown;
  /** `time`: an instant, shown in DISPLAY_TIMEZONE; a function: a code shown as its label. */
  show?: 'time' | ((value: unknown, locale: Locale) => unknown);
}

export interface ExportRequest {
  format: ExportFormat;
  columns: ExportColumns;
  locale: Locale;
  timeZone: string;
}

/** The options of a request, csv and labels when left out. */
export function exportRequest(dto: ExportOptionsDto, locale: Locale, timeZone: string): ExportRequest {
  return { format: dto.format ?? 'csv', columns: dto.columns ?? 'labels', locale, timeZone };
}

/** A code as its label `exportLabel.<prefix><code>`; the code itself when there is none. */
export function codeLabel(prefix: string) {
  const labels = TEXTS.exportLabel as Record<string, Bilingual>;
  return (value: unknown, locale: Locale): unknown => labels[`${prefix}${String(value)}`]?.[locale] ?? value;
}

/** The filters of an export as its audit row keeps them: without the export's own options. */
export function filtersOf<T extends ExportOptionsDto>(dto: T): Omit<T, 'format' | 'columns'> {
  const { format: _format, columns: _columns, ...filters } = dto;
  return filters;
}

/**
 * An export's answer: CSV (as /sys/loginLog/export always was) or xlsx, with the field names
 * and raw values for scripts or labelled columns for people. Either is streamed slice by slice.
 */
export function exportTable<R>(
  name: string,
  columns: readonly ExportColumn<R>[],
  slices: AsyncIterable<R[]>,
  req: ExportRequest,
): StreamableFile {
  const forPeople = req.columns === 'labels';
  // Times last, so that the zone named in their headers is also the last header (a reader meets it once).
  const order = forPeople
    ? [...columns.filter((c) => c.show !== 'time'), ...columns.filter((c) => c.show === 'time')]
    : columns;
  const header = order.map((c) =>
    forPeople ? text(c.label, req.locale) + (c.show === 'time' ? ` (${req.timeZone})` : '') : c.field,
  );
  const cells = (row: R) =>
    order.map((c) => {
      const value = c.value(row);
      if (!forPeople || value === null || value === undefined) return value;
      if (c.show === 'time') return formatLocalTime(value as Date | string, req.timeZone);
      return c.show ? c.show(value, req.locale) : value;
    });
  if (req.format === 'csv') return csvFile(csvStream(header, slices, cells), name);
  return new StreamableFile(xlsxStream(name, header, slices, cells), {
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    disposition: `attachment; filename="${name}.xlsx"`,
  }).setErrorLogger(exportErrorLogger(name));
}

/** An xlsx cell: text (formula-neutralised like CSV), a Date as ISO 8601 UTC text, empty for null. */
function xlsxCell(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  return neutralised(value instanceof Date ? value.toISOString() : String(value));
}

/**
 * One sheet written by exceljs's streaming writer: each row is committed (written out, then
 * dropped) as it is added, and the next slice is read only once the consumer has drained what
 * is buffered, so memory stays bounded by about a slice whatever the row count.
 */
export function xlsxStream<R>(
  sheetName: string,
  header: readonly string[],
  slices: AsyncIterable<R[]>,
  cells: (row: R) => unknown[],
): Readable {
  const out = new PassThrough({ highWaterMark: 64 * 1024 });
  const book = new (excel().stream.xlsx.WorkbookWriter)({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = book.addWorksheet(sheetName);
  const write = async () => {
    sheet.addRow([...header]).commit();
    for await (const slice of slices) {
      for (const row of slice) sheet.addRow(cells(row).map(xlsxCell)).commit();
      // Let the zip stream move what was committed into `out` before judging its fill.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (out.writableNeedDrain && !out.destroyed) await Promise.race([once(out, 'drain'), once(out, 'close')]);
      if (out.destroyed) return;
    }
    sheet.commit();
    await book.commit();
  };
  write().catch((err: unknown) => out.destroy(err as Error));
  return out;
}
