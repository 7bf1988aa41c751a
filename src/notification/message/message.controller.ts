import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentAuth, Public } from '../../auth/auth.decorators';
import { tokenOf } from '../../auth/guards/token.guard';
import { SessionService } from '../../auth/session/session.service';
import type { AuthContext, Session } from '../../auth/session/session.types';
import { ApiEnvelope } from '../../common/api-envelope';
import { AppException } from '../../common/app.exception';
import { clientIp } from '../../common/client-info';
import { ErrorCode, localeOf } from '../../common/error-code';
import { NoInputDto } from '../../common/validation.pipe';
import { StrategyService } from '../../strategy/strategy.service';
import { ListMessagesDto, ReadMessagesDto, SiteMessageDto, StreamTicketDto } from '../dto/message.dto';
import { MessagePushService } from './message-push.service';
import { MessageStream } from './message-stream';
import { MessageService } from './message.service';
import { StreamTicketService } from './stream-ticket.service';

/** Contract §4 /sys/message/*: the caller's own site messages, and their real-time stream. */
@ApiTags('messages')
@ApiSecurity('Admin-Token')
@Controller('sys/message')
export class MessageController {
  constructor(
    private readonly messages: MessageService,
    private readonly push: MessagePushService,
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
    private readonly tickets: StreamTicketService,
  ) {}

  @Post('list') @HttpCode(200)

  @ApiEnvelope(SiteMessageDto, 'page')
  list(@CurrentAuth() auth: AuthContext, @Body() dto: ListMessagesDto) {
    return this.messages.list(auth.session.userId, dto);
  }

  @Post('read') @HttpCode(200)
  async read(@CurrentAuth() auth: AuthContext, @Body() dto: ReadMessagesDto) {
    await this.messages.markRead(auth.session.userId, dto.ids);
  }

  /**
   * Contract §11: a one-time ticket for GET /sys/message/stream?ticket=…, valid 30 s, tied to the
   * calling session. A temporary token does not get one (TEMP_URIS, spec 5.4).
   */
  @Post('streamTicket') @HttpCode(200)
  @ApiEnvelope(StreamTicketDto)
  @ApiOperation({ summary: 'One-time ticket (30 s) for opening the message stream from a browser' })
  async streamTicket(@CurrentAuth() auth: AuthContext, @Body() _body: NoInputDto): Promise<{ ticket: string }> {
    return { ticket: await this.tickets.issue(auth.tokenHash) };
  }

  /**
   * Server-Sent Events: each new site message of the caller as `event: message`. GET, because that
   * is what EventSource sends; and EventSource cannot set headers, so besides Admin-Token the stream
   * takes `?ticket=` from POST /sys/message/streamTicket (never the token itself in the URL: URLs
   * end up in logs and history). The global token guard reads headers only, so the route is public
   * and checks the session itself, with the same rules (live, not kicked out, not temporary, bindIp).
   * The stream ends within a second of its session (MessagePushService.checkSessions).
   */
  @Get('stream') @Public()
  @ApiOperation({ summary: 'Server-Sent Events stream of new site messages' })
  @ApiQuery({ name: 'ticket', required: false, description: 'a ticket from POST /sys/message/streamTicket, for clients that cannot send Admin-Token' })
  @ApiQuery({ name: 'lang', required: false, description: 'language of the closing event (zh, en); default Accept-Language' })
  async stream(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { userId, tokenHash } = await this.authenticate(request);
    // The client may have left while the session was looked up: attach nothing for it.
    if (reply.raw.destroyed || request.raw.socket?.destroyed) return;
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
    const stream = new MessageStream(userId, tokenHash, reply.raw, locale);
    this.push.attach(stream);
    reply.raw.on('close', () => this.push.detach(stream));
    stream.open();
  }

  private async authenticate(request: FastifyRequest): Promise<{ userId: string; tokenHash: string }> {
    const { tokenHash, session } = await this.sessionOf(request);
    // A temporary token reaches only TEMP_URIS (spec 5.4); this path is not one of them.
    if (session.temp === 1) throw new AppException(ErrorCode.TEMP_TOKEN_FORBIDDEN);
    if ((await this.strategy.loginStrategy()).bindIp && session.ip !== clientIp(request)) {
      throw new AppException(ErrorCode.IP_MISMATCH);
    }
    return { userId: session.userId, tokenHash };
  }

  /** The session behind `?ticket=` (spent here, whatever follows) or else the Admin-Token header. */
  private async sessionOf(request: FastifyRequest): Promise<{ tokenHash: string; session: Session }> {
    const ticket = ((request.query ?? {}) as Record<string, unknown>).ticket;
    if (ticket !== undefined) {
      const tokenHash = typeof ticket === 'string' ? await this.tickets.redeem(ticket) : null;
      const session = tokenHash ? await this.sessions.byTokenId(tokenHash) : null;
      // A ticket outlives nothing: the session that asked for it must still be live.
      if (!tokenHash || !session) throw new AppException(ErrorCode.NOT_LOGGED_IN);
      if (session.kickout === 1) throw new AppException(ErrorCode.KICKED_OUT);
      return { tokenHash, session };
    }
    const token = tokenOf(request);
    if (!token || token.length > 256) throw new AppException(ErrorCode.NOT_LOGGED_IN);
    return this.sessions.resolve(token);
  }
}
