// Webhook signatures (docs/bot-protocol.md "Verifying a request").
//
// The platform signs every request: X-CYA-Timestamp is the Unix time in seconds, and
// X-CYA-Signature is "sha256=" + the hex HMAC-SHA256 of "<timestamp>.<body>" under the
// bot version's secret. A request whose signature does not match, or whose timestamp is
// more than five minutes from now (a replayed request), must be refused.

import { createHmac, timingSafeEqual } from 'node:crypto';

export const PREFIX = 'sha256=';
export const TOLERANCE_SECONDS = 300;

/** The X-CYA-Signature value of a request body (a Buffer or string) sent at timestamp. */
export function sign(secret, timestamp, body) {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(body);
  return PREFIX + hmac.digest('hex');
}

/** Whether the platform signed this body, recently; compared in constant time. */
export function verify(
  secret,
  timestamp,
  body,
  signature,
  { now = Date.now() / 1000, tolerance = TOLERANCE_SECONDS } = {},
) {
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now - Number(timestamp)) > tolerance) return false;
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(sign(secret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
