import { formatSyslog, octetFrame, SEVERITY } from './syslog-message';

describe('RFC 5424 messages of the logs', () => {
  const time = new Date('2025-06-01T08:30:00.123Z');

  it('writes the header fields in order, with the row as JSON behind a BOM', () => {
    const text = formatSyslog({
      msgid: 'login',
      severity: SEVERITY.informational,
      time,
      hostname: 'lps-1.example',
      procid: 4242,
      body: { id: '7', account: '张三', status: 'success' },
    });
    // authpriv (10) * 8 + informational (6) = 86
    expect(text).toBe(
      '<86>1 2025-06-01T08:30:00.123Z lps-1.example lps 4242 login - \uFEFF{"id":"7","account":"张三","status":"success"}',
    );
  });

  it('puts audit rows under facility log audit (13) and keeps header fields to printable ASCII', () => {
    const text = formatSyslog({
      msgid: 'audit',
      severity: SEVERITY.notice,
      time,
      hostname: 'host with spaces\n',
      procid: '',
      body: {},
    });
    expect(text.startsWith('<109>1 2025-06-01T08:30:00.123Z hostwithspaces lps - audit - ')).toBe(true);
  });

  it('frames a message by its length in bytes (RFC 6587 octet counting), not in characters', () => {
    const message = '<86>1 - - lps - login - \uFEFF{"a":"张"}';
    const frame = octetFrame(message);
    const bytes = Buffer.byteLength(message, 'utf8');
    expect(bytes).toBeGreaterThan(message.length);
    expect(frame.toString('utf8')).toBe(`${bytes} ${message}`);
  });
});
