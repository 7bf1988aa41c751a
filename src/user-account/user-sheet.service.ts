import { Injectable, StreamableFile } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type ExcelJS from 'exceljs';

import { actedBy, AuditLogService } from '../audit/audit-log.service';
import { AppException, FieldProblem, fieldProblem, fieldsFailed, validationFailed } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { ErrorCode, messageOf } from '../common/error-code';
import { excel } from '../common/excel';
import { codeLabel, ExportColumn, ExportRequest, exportTable } from '../common/export-table';
import { type Bilingual, type Locale, text, TEXTS } from '../common/texts';
import { BodyValidationPipe } from '../common/validation.pipe';
import { InitialPasswordIssuedEvent } from './account.events';
import { CreateUserDto, ExportUsersDto, IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, ImportUsersDto } from './dto/user.dto';
import { RoleService } from './role.service';
import { UserAdminService, UserView } from './user-admin.service';
import { identifiersOf } from './user-identifier';

/** The template's columns, in order; user name and name are required, roles are role codes separated by commas. */
const IMPORT_COLUMNS = ['username', 'name', 'mobile', 'email', 'roles'] as const;
type ImportField = (typeof IMPORT_COLUMNS)[number];
const REQUIRED: ImportField[] = ['username', 'name'];

/** Users created at once by an import. */
const CREATE_PARALLEL = 4;

/** Users per list read of an export. */
const EXPORT_PAGE = 500;

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const yesNo = (value: unknown, locale: Locale) => text(value ? 'exportLabel.yes' : 'exportLabel.no', locale);

/** The user list's columns as an export writes them (roles as codes joined by commas). */
export const USER_COLUMNS: ExportColumn<UserView>[] = [
  { field: 'id', label: 'exportLabel.id', value: (u) => u.id },
  { field: 'username', label: 'exportLabel.username', value: (u) => u.username },
  { field: 'name', label: 'exportLabel.name', value: (u) => u.name },
  { field: 'mobile', label: 'exportLabel.mobile', value: (u) => u.mobile },
  { field: 'email', label: 'exportLabel.email', value: (u) => u.email },
  { field: 'roles', label: 'exportLabel.roles', value: (u) => u.roles.join(',') },
  { field: 'state', label: 'exportLabel.state', value: (u) => u.state, show: codeLabel('state_') },
  { field: 'mfaEnabled', label: 'exportLabel.mfaEnabled', value: (u) => u.mfaEnabled, show: yesNo },
  { field: 'createTime', label: 'exportLabel.createTime', value: (u) => u.createTime, show: 'time' },
  { field: 'lastLoginTime', label: 'exportLabel.lastLoginTime', value: (u) => u.lastLoginTime, show: 'time' },
  {
    field: 'passwordExpireTime',
    label: 'exportLabel.passwordExpireTime',
    value: (u) => u.passwordExpireTime,
    show: 'time',
  },
];

interface SheetRow {
  row: number;
  values: Partial<Record<ImportField, string>>;
}

/**
 * Users in and out of Excel: the import template, the all-or-nothing import (every row checked by
 * /sys/user/create's own rules before anyone is created) and the export of the list's filters.
 */
@Injectable()
export class UserSheetService {
  private readonly pipe = new BodyValidationPipe();

  constructor(
    private readonly accounts: UserAdminService,
    private readonly roles: RoleService,
    private readonly audit: AuditLogService,
    private readonly events: EventEmitter2,
  ) {}

  /** The template: one header row in the caller's language (the import also takes the field names). */
  async template(locale: Locale): Promise<StreamableFile> {
    const book = new (excel().Workbook)();
    const sheet = book.addWorksheet('users');
    sheet.addRow(IMPORT_COLUMNS.map((f) => text(`exportLabel.${f}`, locale)));
    sheet.getRow(1).font = { bold: true };
    sheet.columns.forEach((c) => (c.width = 20));
    // Mobile numbers as text, so that Excel keeps them whole (no 1.38E+10, no lost leading +).
    sheet.getColumn(3).numFmt = '@';
    const buffer = Buffer.from(await book.xlsx.writeBuffer());
    return new StreamableFile(buffer, { type: XLSX_TYPE, disposition: 'attachment; filename="user-import.xlsx"' });
  }

  /** The users the list's filters find, as an export; paged through the list itself, so its columns agree with it. */
  /** `wholePii`: the mobile and e-mail whole (a holder of sys:user:pii), else masked as in the list. */
  export(dto: ExportUsersDto, req: ExportRequest, wholePii = false): StreamableFile {
    const accounts = this.accounts;
    async function* slices(): AsyncGenerator<UserView[]> {
      for (let pageNum = 1; ; pageNum++) {
        const page = await accounts.list(
          { keyword: dto.keyword, state: dto.state, pageNum, pageSize: EXPORT_PAGE },
          wholePii,
        );
        if (page.rows.length) yield page.rows;
        if (page.rows.length < EXPORT_PAGE) return;
      }
    }
    return exportTable('users', USER_COLUMNS, slices(), req);
  }

  /**
   * Checks every row with /sys/user/create's rules (the DTO's, the roles the caller may give, the
   * identifiers no other user or other row holds) and a way to reach the user; any refusal answers
   * VALIDATION_FAILED with every row's errors and creates nobody. Otherwise (not a dry run) creates
   * the users with generated passwords, each told to its user alone, and audits one user.import.
   * A row whose identifier another request takes between the check and its creation is the one
   * exception to all or nothing: the rows created stay (and are audited), and the answer is
   * VALIDATION_FAILED naming that row.
   */
  async import(dto: ImportUsersDto, actor: Actor): Promise<{ total: number; created: number; errors: [] }> {
    const rows = await this.rowsOf(dto.file);
    const held = [...actor.codes];
    const problems: FieldProblem[] = [];
    const checked: { row: number; user: CreateUserDto }[] = [];
    const seen = new Map<string, { row: number; field: string }>();
    for (const { row, values } of rows) {
      const rowProblems: FieldProblem[] = [];
      const body: Record<string, unknown> = { username: values.username ?? '', name: values.name ?? '' };
      if (values.mobile) body.mobile = values.mobile;
      if (values.email) body.email = values.email;
      if (values.roles) body.roles = values.roles.split(/[,，;；\s]+/).filter(Boolean);
      let user: CreateUserDto | undefined;
      try {
        user = (await this.pipe.transform(body, { type: 'body', metatype: CreateUserDto })) as CreateUserDto;
      } catch (err) {
        rowProblems.push(...problemsOf(err, 'body'));
      }
      if (user) {
        if (!user.mobile && !user.email) rowProblems.push(fieldProblem('userImport.noContact', 'email'));
        try {
          await this.roles.assertMayCreateWith(held, [...new Set(user.roles ?? [])]);
        } catch (err) {
          rowProblems.push(...problemsOf(err, 'roles'));
        }
        const identifiers = identifiersOf(user);
        for (const i of identifiers) {
          const first = seen.get(i.value);
          if (first) {
            const field = (l: Locale) => text(`exportLabel.${i.kind}`, l);
            rowProblems.push({
              field: i.kind,
              zh: text('userImport.duplicate', 'zh', { field: field('zh'), row: first.row }),
              en: text('userImport.duplicate', 'en', { field: field('en'), row: first.row }),
            });
          } else seen.set(i.value, { row, field: i.kind });
        }
        rowProblems.push(...(await this.accounts.identifierProblems(identifiers)));
        if (!rowProblems.length) checked.push({ row, user });
      }
      problems.push(...rowProblems.map((p) => ({ ...p, row })));
    }
    if (problems.length) throw fieldsFailed(problems);
    if (dto.dryRun) return { total: rows.length, created: 0, errors: [] };
    let created = 0;
    // A row that another request took an identifier of since the check: named like a checked row.
    // The rows created by then stay and are audited; the answer names the rows that were not.
    const late: FieldProblem[] = [];
    let broken: unknown;
    // A few at a time: BCrypt runs on libuv's pool (4 threads), so hashes overlap instead of queueing.
    for (let i = 0; i < checked.length && !broken; i += CREATE_PARALLEL) {
      await Promise.all(
        checked.slice(i, i + CREATE_PARALLEL).map(async ({ row, user }) => {
          try {
            // Not audited one by one: the import is one administrative act, audited below with its count.
            const made = await this.accounts.create({ ...user, password: undefined }, held);
            created++;
            const channels = [...(user.email ? ['email' as const] : []), ...(user.mobile ? ['sms' as const] : [])];
            await this.events.emitAsync(
              InitialPasswordIssuedEvent.NAME,
              new InitialPasswordIssuedEvent(made.id, user.username, made.password!, channels),
            );
          } catch (err) {
            if (err instanceof AppException && err.fields?.length) late.push(...err.fields.map((p) => ({ ...p, row })));
            else broken ??= err;
          }
        }),
      );
    }
    if (created) {
      await this.audit.record({ action: 'user.import', ...actedBy(actor), targetId: null, detail: { count: created } });
    }
    if (broken) throw broken;
    if (late.length) throw fieldsFailed(late);
    return { total: rows.length, created, errors: [] };
  }

  /** The data rows of the first sheet, by the template's header (labels in either language, or field names). */
  private async rowsOf(base64: string): Promise<SheetRow[]> {
    const file = Buffer.from(base64, 'base64');
    if (file.length > IMPORT_MAX_BYTES)
      throw validationFailed('userImport.tooLarge', 'file', { max: IMPORT_MAX_BYTES });
    const book = new (excel().Workbook)();
    try {
      await book.xlsx.load(file as unknown as ArrayBuffer);
    } catch {
      throw validationFailed('userImport.notXlsx', 'file');
    }
    const sheet = book.worksheets[0];
    if (!sheet) throw validationFailed('userImport.notXlsx', 'file');
    if (sheet.actualRowCount - 1 > IMPORT_MAX_ROWS) {
      throw validationFailed('userImport.tooManyRows', 'file', { max: IMPORT_MAX_ROWS });
    }
    const columnOf = new Map<ImportField, number>();
    sheet.getRow(1).eachCell((cell, col) => {
      const field = fieldOfHeader(cellText(cell.value));
      if (field && !columnOf.has(field)) columnOf.set(field, col);
    });
    const missing = REQUIRED.filter((f) => !columnOf.has(f));
    if (missing.length) throw validationFailed('userImport.missingColumns', 'file', { columns: missing.join(',') });
    const rows: SheetRow[] = [];
    sheet.eachRow({ includeEmpty: false }, (r, number) => {
      if (number === 1) return;
      const values: SheetRow['values'] = {};
      for (const [field, col] of columnOf) {
        const value = cellText(r.getCell(col).value).trim();
        if (value) values[field] = value;
      }
      if (Object.keys(values).length) rows.push({ row: number, values });
    });
    if (rows.length > IMPORT_MAX_ROWS)
      throw validationFailed('userImport.tooManyRows', 'file', { max: IMPORT_MAX_ROWS });
    if (!rows.length) throw validationFailed('userImport.noRows', 'file');
    return rows;
  }
}

/** A header cell's field: the field name itself, or its label in zh or en. */
function fieldOfHeader(header: string): ImportField | undefined {
  const h = header.trim().toLowerCase();
  const labels = TEXTS.exportLabel as Record<string, Bilingual>;
  return IMPORT_COLUMNS.find(
    (f) => f.toLowerCase() === h || labels[f].zh.toLowerCase() === h || labels[f].en.toLowerCase() === h,
  );
}

/** What a cell shows, as text: numbers whole (a mobile typed as a number), rich text and links by their text. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? value.toFixed(0) : String(value);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((t) => t.text).join('');
    if ('text' in value) return cellText(value.text as ExcelJS.CellValue);
    if ('result' in value) return cellText((value.result ?? null) as ExcelJS.CellValue);
  }
  return '';
}

/** A refusal of /sys/user/create's rules as the row's problems; FORBIDDEN of roles beyond the caller's codes as one on roles. */
function problemsOf(err: unknown, field: string): FieldProblem[] {
  if (!(err instanceof AppException)) throw err;
  if (err.fields?.length) return err.fields;
  if (err.code === ErrorCode.FORBIDDEN) return [fieldProblem('userImport.rolesBeyondCaller', field)];
  return [{ field, zh: err.detail?.zh ?? messageOf(err.code, 'zh'), en: err.detail?.en ?? messageOf(err.code, 'en') }];
}
