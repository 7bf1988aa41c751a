import type Dysmsapi from '@alicloud/dysmsapi20170525';
import type { sms as TencentSms } from 'tencentcloud-sdk-nodejs-sms';

import { AppConfig } from '../../config/app-config';
import { PermanentDeliveryError } from '../notification.types';
import { SmsMessage, SmsProvider, SmsTemplateName } from './sms.provider';

const TIMEOUT_MS = 10_000;

/** The template id SMS_TEMPLATE_<NAME> names, and its parameters; a notice without one is sent as `text`. */
function templateOf(config: AppConfig, message: SmsMessage): { id: string; params: Record<string, string> } {
  const template = message.template ?? { name: 'notice' as SmsTemplateName, params: { text: message.text } };
  const id = {
    login: config.SMS_TEMPLATE_LOGIN,
    reset: config.SMS_TEMPLATE_RESET,
    mfa: config.SMS_TEMPLATE_MFA,
    notice: config.SMS_TEMPLATE_NOTICE,
  }[template.name];
  if (!id)
    throw new PermanentDeliveryError(
      `no SMS template is set for ${template.name} (SMS_TEMPLATE_${template.name.toUpperCase()})`,
    );
  return { id, params: template.params };
}

/** An endpoint as the SDKs take it: host[:port], and whether it is plain http (a local stand-in). */
function endpointOf(value: string): { host: string; http: boolean } {
  const url = /^https?:\/\//.test(value) ? new URL(value) : new URL(`https://${value}`);
  return { host: url.host, http: url.protocol === 'http:' };
}

type AliyunSdk = typeof import('@alicloud/dysmsapi20170525');

/**
 * Alibaba Cloud SMS (dysmsapi 2017-05-25 SendSms) through its official SDK: SMS_ACCESS_KEY_ID /
 * SMS_ACCESS_KEY_SECRET, SMS_SIGN_NAME, a template per purpose, the parameters as TemplateParam
 * JSON, the outbox row's id as OutId. A refusal the SDK reports in the body (isv.*) will not pass on a
 * retry, except the provider's own flow control; network and 5xx failures are retried.
 */
export class AliyunSmsProvider extends SmsProvider {
  private readonly client: Dysmsapi;
  private readonly SendSmsRequest: AliyunSdk['SendSmsRequest'];

  constructor(private readonly config: AppConfig) {
    super();
    const { host, http } = endpointOf(config.SMS_ENDPOINT ?? 'dysmsapi.aliyuncs.com');
    // Loaded only where this provider is chosen: each SMS SDK weighs tens of MiB of memory.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: Client, SendSmsRequest } = require('@alicloud/dysmsapi20170525') as AliyunSdk;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { $OpenApiUtil } = require('@alicloud/openapi-core') as typeof import('@alicloud/openapi-core');
    this.SendSmsRequest = SendSmsRequest;
    this.client = new Client(
      new $OpenApiUtil.Config({
        accessKeyId: config.SMS_ACCESS_KEY_ID,
        accessKeySecret: config.SMS_ACCESS_KEY_SECRET,
        endpoint: host,
        protocol: http ? 'http' : 'https',
        regionId: config.SMS_REGION ?? 'cn-hangzhou',
        readTimeout: TIMEOUT_MS,
        connectTimeout: TIMEOUT_MS,
      }),
    );
  }

  get configured(): boolean {
    return !!(this.config.SMS_ACCESS_KEY_ID && this.config.SMS_ACCESS_KEY_SECRET && this.config.SMS_SIGN_NAME);
  }

  readonly missing = 'SMS_ACCESS_KEY_ID, SMS_ACCESS_KEY_SECRET and SMS_SIGN_NAME must be set for aliyun';

  async send(message: SmsMessage): Promise<void> {
    const { id, params } = templateOf(this.config, message);
    const res = await this.client.sendSms(
      new this.SendSmsRequest({
        phoneNumbers: message.to,
        signName: this.config.SMS_SIGN_NAME,
        templateCode: id,
        templateParam: JSON.stringify(params),
        outId: message.id,
      }),
    );
    const code = res.body?.code;
    if (code === 'OK') return;
    const problem = `Aliyun SMS refused the message: ${code ?? 'no code'}`;
    if (code === 'isv.BUSINESS_LIMIT_CONTROL') throw new Error(problem);
    throw new PermanentDeliveryError(problem);
  }
}

/**
 * Tencent Cloud SMS (2021-01-11 SendSms) through its official SDK: SMS_ACCESS_KEY_ID /
 * SMS_ACCESS_KEY_SECRET as SecretId / SecretKey, SMS_SDK_APP_ID, SMS_SIGN_NAME, a template per
 * purpose, the parameters in their order as TemplateParamSet, the outbox row's id as SessionContext.
 * Numbers without a country code are taken as Chinese (+86), as the API wants E.164.
 */
export class TencentSmsProvider extends SmsProvider {
  private readonly client: InstanceType<typeof TencentSms.v20210111.Client>;

  constructor(private readonly config: AppConfig) {
    super();
    const { host, http } = endpointOf(config.SMS_ENDPOINT ?? 'sms.tencentcloudapi.com');
    // Loaded only where this provider is chosen, as the Aliyun SDK is.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { sms } = require('tencentcloud-sdk-nodejs-sms') as { sms: typeof TencentSms };
    this.client = new sms.v20210111.Client({
      credential: { secretId: config.SMS_ACCESS_KEY_ID, secretKey: config.SMS_ACCESS_KEY_SECRET },
      region: config.SMS_REGION ?? 'ap-guangzhou',
      profile: {
        httpProfile: { endpoint: host, protocol: http ? 'http://' : 'https://', reqTimeout: TIMEOUT_MS / 1000 },
      },
    });
  }

  get configured(): boolean {
    return !!(
      this.config.SMS_ACCESS_KEY_ID &&
      this.config.SMS_ACCESS_KEY_SECRET &&
      this.config.SMS_SIGN_NAME &&
      this.config.SMS_SDK_APP_ID
    );
  }

  readonly missing =
    'SMS_ACCESS_KEY_ID, SMS_ACCESS_KEY_SECRET, SMS_SIGN_NAME and SMS_SDK_APP_ID must be set for tencent';

  async send(message: SmsMessage): Promise<void> {
    const { id, params } = templateOf(this.config, message);
    const res = await this.client.SendSms({
      PhoneNumberSet: [message.to.startsWith('+') ? message.to : `+86${message.to}`],
      SmsSdkAppId: this.config.SMS_SDK_APP_ID!,
      SignName: this.config.SMS_SIGN_NAME,
      TemplateId: id,
      TemplateParamSet: Object.values(params),
      SessionContext: message.id,
    });
    const status = res.SendStatusSet?.[0];
    if (status?.Code === 'Ok') return;
    const problem = `Tencent SMS refused the message: ${status?.Code ?? 'no status'}`;
    if (status?.Code === 'LimitExceeded.PhoneNumberThirtySecondLimit') throw new Error(problem);
    throw new PermanentDeliveryError(problem);
  }
}
