import { createHash, createHmac } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { AppConfig } from '../../src/config/app-config';
import { SmsMessage } from '../../src/notification/channels/sms.provider';
import { AliyunSmsProvider, TencentSmsProvider } from '../../src/notification/channels/sms-template.providers';
import { PermanentDeliveryError } from '../../src/notification/notification.types';

/** A local stand-in for a provider's API: records each request, answers what `answer` says. */
class ProviderStub {
  readonly requests: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  answer: (url: string) => { status: number; body: unknown } = () => ({ status: 200, body: {} });
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const { status, body } = this.answer(req.url!);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server!.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

const SECRET = 'test-secret-key';
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();
/** RFC 3986 encoding, as both providers' canonical forms use it. */
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const codeMessage: SmsMessage = {
  id: 'row-1',
  to: '13800001111',
  text: '【登录验证码】您的验证码是123456',
  kind: 'otp-login',
  template: { name: 'login', params: { code: '123456' } },
};

function configFor(stub: ProviderStub, over: Partial<AppConfig> = {}): AppConfig {
  return {
    SMS_ACCESS_KEY_ID: 'AKIDTEST',
    SMS_ACCESS_KEY_SECRET: SECRET,
    SMS_SIGN_NAME: '登录服务',
    SMS_SDK_APP_ID: '1400000001',
    SMS_ENDPOINT: `http://127.0.0.1:${stub.port}`,
    SMS_TEMPLATE_LOGIN: 'TPL_LOGIN',
    SMS_TEMPLATE_RESET: 'TPL_RESET',
    ...over,
  } as AppConfig;
}

describe('the Alibaba Cloud SMS provider against a local stand-in of its API', () => {
  let stub: ProviderStub;
  beforeEach(async () => {
    stub = await new ProviderStub().start();
    stub.answer = () => ({ status: 200, body: { Code: 'OK', Message: 'OK', BizId: 'b1', RequestId: 'r1' } });
  });
  afterEach(() => stub.stop());

  it('sends SendSms with the template of the purpose, its parameters and the row id, signed ACS3-HMAC-SHA256', async () => {
    await new AliyunSmsProvider(configFor(stub)).send(codeMessage);
    expect(stub.requests).toHaveLength(1);
    const [req] = stub.requests;
    expect(req.method).toBe('POST');
    expect(req.headers['x-acs-action']).toBe('SendSms');
    expect(req.headers['x-acs-version']).toBe('2017-05-25');
    const query = new URL(req.url, 'http://stub').searchParams;
    expect(Object.fromEntries(query)).toEqual({
      PhoneNumbers: '13800001111',
      SignName: '登录服务',
      TemplateCode: 'TPL_LOGIN',
      TemplateParam: '{"code":"123456"}',
      OutId: 'row-1',
    });

    // The signature, computed here from the request as received.
    const auth = /^ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]{64})$/.exec(
      req.headers.authorization!,
    )!;
    expect(auth[1]).toBe('AKIDTEST');
    const signed = auth[2].split(';');
    const canonicalQuery = [...query.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
      .join('&');
    const canonicalHeaders = signed.map((h) => `${h}:${String(req.headers[h]).trim()}\n`).join('');
    const canonicalRequest = ['POST', '/', canonicalQuery, canonicalHeaders, signed.join(';'), sha256(req.body)].join(
      '\n',
    );
    const expected = hmac(SECRET, `ACS3-HMAC-SHA256\n${sha256(canonicalRequest)}`).toString('hex');
    expect(auth[3]).toBe(expected);
  });

  it('a refusal in the body fails the row for good; the provider’s flow control is retried', async () => {
    stub.answer = () => ({ status: 200, body: { Code: 'isv.MOBILE_NUMBER_ILLEGAL', Message: 'bad', RequestId: 'r' } });
    const provider = new AliyunSmsProvider(configFor(stub));
    await expect(provider.send(codeMessage)).rejects.toBeInstanceOf(PermanentDeliveryError);
    stub.answer = () => ({
      status: 200,
      body: { Code: 'isv.BUSINESS_LIMIT_CONTROL', Message: 'slow', RequestId: 'r' },
    });
    const err = await provider.send(codeMessage).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PermanentDeliveryError);
  });

  it('without a template for the purpose nothing is sent and the row fails for good', async () => {
    const provider = new AliyunSmsProvider(configFor(stub, { SMS_TEMPLATE_LOGIN: undefined }));
    await expect(provider.send(codeMessage)).rejects.toThrow(/SMS_TEMPLATE_LOGIN/);
    expect(stub.requests).toHaveLength(0);
  });

  it('is configured only with key, secret and sign name', () => {
    expect(new AliyunSmsProvider(configFor(stub)).configured).toBe(true);
    expect(new AliyunSmsProvider(configFor(stub, { SMS_SIGN_NAME: undefined })).configured).toBe(false);
  });
});

describe('the Tencent Cloud SMS provider against a local stand-in of its API', () => {
  let stub: ProviderStub;
  beforeEach(async () => {
    stub = await new ProviderStub().start();
    stub.answer = () => ({
      status: 200,
      body: {
        Response: { SendStatusSet: [{ Code: 'Ok', SerialNo: 's1', PhoneNumber: '+8613800001111' }], RequestId: 'r1' },
      },
    });
  });
  afterEach(() => stub.stop());

  it('sends SendSms with E.164 numbers, the template, its parameters in order, signed TC3-HMAC-SHA256', async () => {
    await new TencentSmsProvider(configFor(stub, { SMS_TEMPLATE_RESET: 'TPL_RESET' })).send({
      ...codeMessage,
      kind: 'otp-reset',
      template: { name: 'reset', params: { code: '654321' } },
    });
    expect(stub.requests).toHaveLength(1);
    const [req] = stub.requests;
    expect(req.headers['x-tc-action']).toBe('SendSms');
    expect(req.headers['x-tc-version']).toBe('2021-01-11');
    expect(JSON.parse(req.body)).toEqual({
      PhoneNumberSet: ['+8613800001111'],
      SmsSdkAppId: '1400000001',
      SignName: '登录服务',
      TemplateId: 'TPL_RESET',
      TemplateParamSet: ['654321'],
      SessionContext: 'row-1',
    });

    const auth =
      /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
        req.headers.authorization!,
      )!;
    const [, secretId, date, service, signedHeaders, signature] = auth;
    expect(secretId).toBe('AKIDTEST');
    const signed = signedHeaders.split(';');
    // TC3 signs the host name without a port (the real endpoint has none; this stand-in listens on one).
    const headerValue = (h: string) =>
      h === 'host' ? String(req.headers.host).replace(/:\d+$/, '') : String(req.headers[h]);
    const canonicalHeaders = signed.map((h) => `${h}:${headerValue(h).trim().toLowerCase()}\n`).join('');
    const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256(req.body)].join('\n');
    const timestamp = String(req.headers['x-tc-timestamp']);
    const scope = `${date}/${service}/tc3_request`;
    const toSign = ['TC3-HMAC-SHA256', timestamp, scope, sha256(canonicalRequest)].join('\n');
    const key = hmac(hmac(hmac(`TC3${SECRET}`, date), service), 'tc3_request');
    expect(signature).toBe(hmac(key, toSign).toString('hex'));
  });

  it('a refused number fails the row for good', async () => {
    stub.answer = () => ({
      status: 200,
      body: { Response: { SendStatusSet: [{ Code: 'InvalidParameterValue.IncorrectPhoneNumber' }], RequestId: 'r' } },
    });
    await expect(new TencentSmsProvider(configFor(stub)).send(codeMessage)).rejects.toBeInstanceOf(
      PermanentDeliveryError,
    );
  });

  it('is configured only with the SDK app id as well', () => {
    expect(new TencentSmsProvider(configFor(stub)).configured).toBe(true);
    expect(new TencentSmsProvider(configFor(stub, { SMS_SDK_APP_ID: undefined })).configured).toBe(false);
  });
});
