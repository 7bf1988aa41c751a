/**
 * RFC 5424 messages of the two logs, and the octet-counting frame of RFC 6587 that TCP and TLS
 * carry them in. Hand-written: the syslog packages on npm either frame by newline only, have no
 * TLS, or are unmaintained, and a header is a handful of fields (docs/operations.md#forwarding-to-syslog).
 */

/** RFC 5424 facilities: security/authorization messages (10) and log audit (13). */
const FACILITY = { authpriv: 10, audit: 13 } as const;
/** RFC 5424 severities used here. */
export const SEVERITY = { warning: 4, notice: 5, informational: 6 } as const;

export interface SyslogMessage {
  /** `login` (a login-log row, facility authpriv) or `audit` (an audit-log row, facility log audit). */
  msgid: 'login' | 'audit';
  severity: number;
  /** The row's own time. */
  time: Date;
  hostname: string;
  procid: string | number;
  /** The row, as JSON in MSG. */
  body: Record<string, unknown>;
}

/** What RFC 5424 allows in a header field: printable US-ASCII, no space; `-` when empty. */
function headerField(value: string, max: number): string {
  const clean = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return clean || '-';
}

/**
 * `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID - BOM{json}`: APP-NAME `lps`, no structured data,
 * MSG the row as JSON in UTF-8 behind the byte order mark RFC 5424 asks of a UTF-8 MSG.
 */
export function formatSyslog(m: SyslogMessage): string {
  const facility = m.msgid === 'login' ? FACILITY.authpriv : FACILITY.audit;
  const pri = facility * 8 + m.severity;
  return [
    `<${pri}>1`,
    m.time.toISOString(),
    headerField(m.hostname, 255),
    'lps',
    headerField(String(m.procid), 128),
    m.msgid,
    '-',
    `\uFEFF${JSON.stringify(m.body)}`,
  ].join(' ');
}

/** RFC 6587 octet counting: the message's length in bytes, a space, the message. */
export function octetFrame(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}
