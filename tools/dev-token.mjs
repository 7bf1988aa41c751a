#!/usr/bin/env node
// A token for /docs' "Authorize" on a development instance (CAPTCHA_ENABLED=false).
// Does what every client does: POST /sys/publicKey, RSA-OAEP-256 encryption of the password
//, POST /sys/login. It cannot pass a captcha, so it is no way around one.
// Usage: node tools/dev-token.mjs [baseUrl] <account> <password>   (or LPS_PASSWORD in the environment)
import { constants, publicEncrypt } from 'node:crypto';

const args = process.argv.slice(2);
const base = /^https?:\/\//.test(args[0] ?? '') ? args.shift().replace(/\/+$/, '') : 'http://localhost:3000';
const [account, password = process.env.LPS_PASSWORD] = args;
if (!account || !password) {
  console.error('usage: node tools/dev-token.mjs [baseUrl] <account> <password>  (or LPS_PASSWORD=…)');
  process.exit(2);
}

async function call(path, body) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify(body),
  });
  const envelope = await res.json();
  if (!envelope.success) {
    console.error(`${path}: ${envelope.code} ${envelope.message}`);
    process.exit(1);
  }
  return envelope.data;
}

const { publicKey } = await call('/sys/publicKey', {});
const encrypted = publicEncrypt(
  { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
  Buffer.from(password, 'utf8'),
);
const result = await call('/sys/login', { account, password: encrypted.toString('base64') });
if (!result.accessToken) {
  console.error(
    result.mfaRequired ? 'this account needs a second factor: use the console' : `no token: ${result.tip ?? ''}`,
  );
  process.exit(1);
}
if (result.tempUser) console.error('note: a temporary token (change the password first); it reaches TEMP_URIS only');
console.log(result.accessToken);
