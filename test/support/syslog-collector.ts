import { execFileSync } from 'node:child_process';
import { createSocket, Socket as UdpSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

/** One RFC 5424 message as a collector got it. */
export interface Received {
  text: string;
  pri: number;
  msgid: string;
  appName: string;
  /** MSG parsed (the log row as JSON, behind its BOM). */
  body: Record<string, any>;
}

const HEADER = /^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) \uFEFF([\s\S]*)$/;

export function parseMessage(text: string): Received {
  const m = HEADER.exec(text);
  if (!m) throw new Error(`not an RFC 5424 message of the service: ${JSON.stringify(text.slice(0, 120))}`);
  return { text, pri: Number(m[1]), appName: m[4], msgid: m[6], body: JSON.parse(m[8]) };
}

/**
 * A local syslog collector for the forwarding suites: TCP or TLS with octet-counted frames
 * (RFC 6587), or UDP with one message per datagram. Stops and starts again on the same port.
 */
export class SyslogCollector {
  readonly received: Received[] = [];
  port = 0;
  private server: Server | null = null;
  private udp: UdpSocket | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly protocol: 'tcp' | 'tls' | 'udp',
    private readonly tls?: { key: Buffer; cert: Buffer },
  ) {}

  get url(): string {
    return `${this.protocol}://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    if (this.protocol === 'udp') {
      const udp = createSocket('udp4');
      udp.on('message', (datagram) => this.received.push(parseMessage(datagram.toString('utf8'))));
      await new Promise<void>((resolve) => udp.bind(this.port, '127.0.0.1', resolve));
      this.port = udp.address().port;
      this.udp = udp;
      return this;
    }
    const onSocket = (socket: Socket) => {
      this.sockets.add(socket);
      let buffer = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        buffer = Buffer.concat([buffer, chunk]);
        for (;;) {
          const space = buffer.indexOf(0x20);
          if (space < 0) break;
          const length = Number(buffer.subarray(0, space).toString('ascii'));
          if (buffer.length < space + 1 + length) break;
          this.received.push(parseMessage(buffer.subarray(space + 1, space + 1 + length).toString('utf8')));
          buffer = buffer.subarray(space + 1 + length);
        }
      });
      socket.on('end', () => socket.end());
      socket.on('error', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    };
    const server = this.protocol === 'tls' ? createTlsServer({ ...this.tls! }, onSocket) : createServer(onSocket);
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    if (this.udp) {
      await new Promise<void>((resolve) => this.udp!.close(() => resolve()));
      this.udp = null;
    }
    if (this.server) {
      for (const socket of this.sockets) socket.destroy();
      await new Promise<void>((resolve) => this.server!.close(() => resolve()));
      this.server = null;
    }
  }
}

/** A self-signed certificate for 127.0.0.1 and localhost, made by openssl in a temporary folder. */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer; certFile: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'lps-syslog-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  return {
    key: readFileSync(keyFile),
    cert: readFileSync(certFile),
    certFile,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
