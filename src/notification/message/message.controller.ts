import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { ApiDoc } from '../../common/api-docs';
import type { AuthContext } from '../../common/auth-context';
import { AcceptsStreamTicket, CurrentAuth } from '../../common/auth-context';
import { localeOf } from '../../common/error-code';
import { HIJACKING } from '../../common/service-logger';
import { NoInputDto } from '../../common/validation.pipe';
import { StreamTicketService } from '../../session/stream-ticket.service';
import { ListMessagesDto, ReadMessagesDto, SiteMessageDto, StreamTicketDto } from '../dto/message.dto';
import { MessageService } from './message.service';
import { MessagePushService } from './message-push.service';
import { MessageStream } from './message-stream';

/** /sys/message/*: the caller's own site messages, and their real-time stream. */
@ApiTags('messages')
@ApiSecurity('Admin-Token')
@Controller('sys/message')
export class MessageController {
  constructor(
    private readonly messages: MessageService,
    private readonly push: MessagePushService,
    private readonly tickets: StreamTicketService,
  ) {}

  @Post('list')
  @HttpCode(200)
  @ApiDoc("The caller's site messages", { data: SiteMessageDto, shape: 'page' })
  list(@CurrentAuth() auth: AuthContext, @Body() dto: ListMessagesDto) {
    return this.messages.list(auth.session.userId, dto);
  }

  @Post('read')
  @HttpCode(200)
  @ApiDoc("Mark the caller's site messages read", { data: null })
  async read(@CurrentAuth() auth: AuthContext, @Body() dto: ReadMessagesDto) {
    await this.messages.markRead(auth.session.userId, dto.ids);
  }

  /**
   * A one-time ticket for GET /sys/message/stream?ticket=…, valid 30 s, tied to the
   * calling session. A temporary token does not get one (TEMP_URIS).
   */
  @Post('streamTicket')
  @HttpCode(200)
  @ApiDoc('One-time ticket (30 s) for opening the message stream from a browser', { data: StreamTicketDto })
  async streamTicket(@CurrentAuth() auth: AuthContext, @Body() _body: NoInputDto): Promise<{ ticket: string }> {
    return { ticket: await this.tickets.issue(auth.tokenHash) };
  }

  /**
   * Server-Sent Events: each new site message of the caller as `event: message`. GET, because that
   * is what EventSource sends; and EventSource cannot set headers, so besides Admin-Token the stream
   * takes `?ticket=` from POST /sys/message/streamTicket (never the token itself in the URL: URLs
   * end up in logs and history). Authentication is the session kernel's, as on every route: live,
   * not kicked out, bindIp, and no temporary token (this path is not in TEMP_URIS).
   * The stream ends within a second of its session (MessagePushService.checkSessions), or when a
   * newer stream pushes it over the caps (5 per session, 20 per user).
   */
  @Get('stream')
  @RouteConfig(HIJACKING)
  @AcceptsStreamTicket()
  @ApiQuery({
    name: 'ticket',
    required: false,
    description: 'a ticket from POST /sys/message/streamTicket, for clients that cannot send Admin-Token',
  })
  @ApiQuery({
    name: 'lang',
    required: false,
    description: 'language of the closing event (zh, en); default Accept-Language',
  })
  @ApiDoc('Server-Sent Events stream of new site messages', {
    produces: {
      contentType: 'text/event-stream',
      description: 'one `event: message` per new site message of the caller',
    },
  })
  async stream(
    @CurrentAuth() auth: AuthContext,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // The client may have left while the session was looked up: attach nothing for it.
    if (reply.raw.destroyed || request.raw.socket?.destroyed) return;
    // Counted before anything is sent, so that a store that is away still answers the envelope.
    const slot = await this.push.claimSlot(auth.session.userId, auth.tokenHash);
    if (reply.raw.destroyed || request.raw.socket?.destroyed) {
      await this.push.releaseSlot(slot);
      return;
    }
    reply.hijack();
    reply.raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store, no-transform',
      connection: 'keep-alive',
      // nginx and similar proxies must not buffer the stream.
      'x-accel-buffering': 'no',
    });
    // EventSource sends the browser's Accept-Language, not the console's choice: ?lang= wins.
    const lang = (request.query as Record<string, unknown> | undefined)?.lang;
    const locale = localeOf(typeof lang === 'string' ? lang : request.headers['accept-language']);
    const stream = new MessageStream(auth.session.userId, auth.tokenHash, reply.raw, locale, slot);
    this.push.attach(stream);
    reply.raw.on('close', () => void this.push.detach(stream));
    stream.open();
  }
}
