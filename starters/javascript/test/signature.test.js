import assert from 'node:assert/strict';
import { test } from 'node:test';

import { sign, verify } from '../signature.js';

const SECRET = 'a-secret-of-sixteen-or-more';
const BODY = '{"type":"decision","decision_id":"1:0"}';
const NOW = 1777663805;

test('signs as the platform does (a signature made by its Python code)', () => {
  // bots.webhook.sign(SECRET, "1777663805", BODY) on the platform
  const platform = 'sha256=a92180c74dd1ff35a528c9e41dbbe0b3b2bb1748e3e7b04acf1a0ef5d20ce67a';
  assert.equal(sign(SECRET, String(NOW), BODY), platform);
  assert.equal(sign(SECRET, String(NOW), Buffer.from(BODY)), platform);
  assert.ok(verify(SECRET, String(NOW), Buffer.from(BODY), platform, { now: NOW }));
});

test('refuses another secret, a changed body, or no signature', () => {
  const signature = sign(SECRET, String(NOW), BODY);
  const other = 'another-secret-entirely';
  assert.equal(verify(other, String(NOW), BODY, signature, { now: NOW }), false);
  assert.equal(verify(SECRET, String(NOW), `${BODY} `, signature, { now: NOW }), false);
  assert.equal(verify(SECRET, String(NOW), BODY, '', { now: NOW }), false);
  assert.equal(verify(SECRET, String(NOW), BODY, undefined, { now: NOW }), false);
  assert.equal(verify(SECRET, undefined, BODY, signature, { now: NOW }), false);
  assert.equal(verify(SECRET, 'soon', BODY, signature, { now: NOW }), false);
});

test('refuses timestamps over five minutes old or ahead', () => {
  for (const [offset, fresh] of [[-301, false], [-299, true], [299, true], [301, false]]) {
    const timestamp = String(NOW + offset);
    const signature = sign(SECRET, timestamp, BODY);
    const verified = verify(SECRET, timestamp, BODY, signature, { now: NOW });
    assert.equal(verified, fresh, `offset ${offset}`);
  }
});
