import { createSocket, Socket as UdpSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { isIP, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

import { Injectable, OnModuleDestroy } from '@nestjs/common';

import { AppConfig, SYSLOG_URL } from '../config/app-config';
import { octetFrame } from './syslog-message';

export interface SyslogTarget {
  protocol: 'udp' | 'tcp' | 'tls';
  host: string;
  port: number;
}

/** SYSLOG_URL as validated by AppConfig; null when unset. */
export function syslogTarget(url: string | undefined): SyslogTarget | null {
  const match = url ? SYSLOG_URL.exec(url) : null;
  if (!match) return null;
  return {
    protocol: match[1] as SyslogTarget['protocol'],
    host: match[2].replace(/^\[(.*)\]$/, '$1'),
    port: Number(match[3]),
  };
}

/** How long one delivery over TCP or TLS may take, connection included. */
const STREAM_DEADLINE_MS = 10_000;
/** How long a collector has to close its side once every message is sent. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Sends messages to SYSLOG_URL (docs/operations.md#forwarding-to-syslog). UDP: one datagram per
 * message, best effort (a lost datagram is never known). TCP and TLS: one connection per batch,
 * every message framed by octet counting (RFC 6587), then closed; the batch counts as delivered
 * once the collector has closed its side too (it read every byte), or a moment after every byte
 * was sent. A failure to connect or send rejects, and the outbox tries the batch again later.
 */
@Injectable()
export class SyslogSender implements OnModuleDestroy {
  readonly target: SyslogTarget | null;
  private readonly ca: Buffer | undefined;
  private udp: UdpSocket | null = null;

  constructor(config: AppConfig) {
    this.target = syslogTarget(config.SYSLOG_URL);
    this.ca = config.SYSLOG_CA_FILE ? readFileSync(config.SYSLOG_CA_FILE) : undefined;
  }

  onModuleDestroy() {
    this.udp?.close();
    this.udp = null;
  }

  /** UDP: resolves once the datagrams are handed to the network; never rejects. */
  async sendDatagrams(messages: string[]): Promise<void> {
    const target = this.target!;
    this.udp ??= createSocket(isIP(target.host) === 6 ? 'udp6' : 'udp4').unref();
    const socket = this.udp;
    socket.on('error', () => undefined);
    await Promise.all(
      messages.map(
        (m) =>
          new Promise<void>((resolve) =>
            socket.send(Buffer.from(m, 'utf8'), target.port, target.host, () => resolve()),
          ),
      ),
    );
  }

  /** TCP or TLS: resolves when the collector has taken every message. */
  sendStream(messages: string[]): Promise<void> {
    const target = this.target!;
    return new Promise<void>((resolve, reject) => {
      const socket: Socket =
        target.protocol === 'tls'
          ? tlsConnect({
              host: target.host,
              port: target.port,
              ca: this.ca,
              // SNI takes a name, not an address.
              servername: isIP(target.host) ? undefined : target.host,
            })
          : new Socket().connect(target.port, target.host);
      let settled = false;
      const finish = (err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        socket.destroy();
        if (err) reject(err);
        else resolve();
      };
      const deadline = setTimeout(
        () => finish(new Error(`syslog ${target.protocol} delivery took longer than ${STREAM_DEADLINE_MS} ms`)),
        STREAM_DEADLINE_MS,
      );
      socket.on(target.protocol === 'tls' ? 'secureConnect' : 'connect', () => {
        socket.end(Buffer.concat(messages.map(octetFrame)));
      });
      socket.on('finish', () => {
        // Every byte is with the operating system; a collector that does not close its side in a
        // moment still gets them (TCP delivers them), and sending them again would duplicate them.
        setTimeout(() => finish(), CLOSE_GRACE_MS).unref();
      });
      socket.on('error', (err) => finish(err));
      // Nothing is expected back; a collector that answers is read and ignored.
      socket.on('data', () => undefined);
      socket.on('close', (hadError) => finish(hadError ? new Error('syslog connection failed') : undefined));
    });
  }
}
