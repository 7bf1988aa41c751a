// The clients of bench item (9), each in its own process so that the load generator of (3) in
// run.mjs does not delay them. Started by run.mjs with a JSON argument:
//   { mode: 'flood', url, seconds, connections, password }   wrong passwords for unknown accounts,
//       each request from a random IP (X-Forwarded-For; the service runs with TRUST_PROXY)
//   { mode: 'user', url, seconds, account, password, pauseMs } one real user logging in again and
//       again from one IP, a pause between logins, every answer timed
// Prints one JSON line with the result and exits.
import { randomBytes } from 'node:crypto';

import autocannon from 'autocannon';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const opts = JSON.parse(process.argv[2]);
const randomIp = () => `198.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0] % 254)}`;

async function flood() {
  const statuses = {};
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.seconds,
    requests: [
      {
        method: 'POST',
        path: '/sys/login',
        setupRequest: (req) => ({
          ...req,
          headers: { 'content-type': 'application/json', 'user-agent': UA, 'x-forwarded-for': randomIp() },
          body: JSON.stringify({ account: `nobody-${randomBytes(6).toString('hex')}`, password: opts.password }),
        }),
        onResponse: (status) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
        },
      },
    ],
  });
  return {
    rps: result.requests.total / (result.duration || opts.seconds),
    statuses,
    errors: result.errors + result.timeouts,
  };
}

async function user() {
  const endAt = Date.now() + opts.seconds * 1000;
  const times = [];
  let ok = 0;
  let shed = 0;
  let shedWithoutRetryAfter = 0;
  const failures = {};
  while (Date.now() < endAt) {
    const started = performance.now();
    let outcome;
    try {
      const res = await fetch(`${opts.url}/sys/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': UA, 'x-forwarded-for': '10.20.30.40' },
        body: JSON.stringify({ account: opts.account, password: opts.password }),
      });
      const body = await res.json();
      outcome = res.status === 503 ? (res.headers.get('retry-after') ? 'shed' : 'shedBare') : body.code;
    } catch (err) {
      outcome = err.name;
    }
    const ms = performance.now() - started;
    if (outcome === 'OK') ok += 1;
    else if (outcome === 'shed') shed += 1;
    else if (outcome === 'shedBare') shedWithoutRetryAfter += 1;
    else failures[outcome] = (failures[outcome] ?? 0) + 1;
    // Every answer is timed, a shed one too (it must be prompt).
    times.push(ms);
    await new Promise((r) => setTimeout(r, opts.pauseMs));
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return {
    n: times.length,
    ok,
    shed,
    shedWithoutRetryAfter,
    failures,
    p50: at(0.5),
    p99: at(0.99),
    max: times.at(-1) ?? 0,
  };
}

const result = opts.mode === 'flood' ? await flood() : await user();
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
