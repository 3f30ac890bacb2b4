import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { answerOf, createBotServer } from '../server.js';
import { sign } from '../signature.js';
import { decision } from '../testing/decisions.js';

const SECRET = 'starter-test-secret-0123456789';
let server;
let url;

before(async () => {
  const decide = (d) => {
    if (d.decision_id === 'boom') throw new Error('a bug in decide');
    return d.legal_actions[0];
  };
  server = createBotServer({ secret: SECRET, decide, name: 'tested' });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}/`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

function post(body, { secret = SECRET, timestamp = String(Math.floor(Date.now() / 1000)) } = {}) {
  const headers = {
    'Content-Type': 'application/json',
    'X-CYA-Timestamp': timestamp,
    'X-CYA-Signature': sign(secret, timestamp, body),
  };
  return fetch(url, { method: 'POST', body, headers });
}

test('answers the handshake with its name and protocol version', async () => {
  const response = await fetch(url);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { name: 'tested', protocol_version: 1 });
});

test('answers a signed decision with one of its legal actions', async () => {
  const d = decision({ legal: [{ type: 'discard', card: 'piano' }], hand: ['piano'] });
  const response = await post(JSON.stringify(d));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { action: { type: 'discard', card: 'piano' } });
});

test('refuses a forged or stale request with 401 before deciding', async () => {
  const body = JSON.stringify(decision({ legal: [{ type: 'concede' }] }));
  assert.equal((await post(body, { secret: 'not-the-bots-secret-at-all' })).status, 401);
  const stale = String(Math.floor(Date.now() / 1000) - 301);
  assert.equal((await post(body, { timestamp: stale })).status, 401);
  const unsigned = await fetch(url, { method: 'POST', body });
  assert.equal(unsigned.status, 401);
});

test('answers 400 to a body that is not a decision, and 500 when decide throws', async () => {
  assert.equal((await post('not json')).status, 400);
  assert.equal((await post('{"type":"handshake"}')).status, 400);
  const failing = { ...decision({ legal: [{ type: 'concede' }] }), decision_id: 'boom' };
  const original = console.error;
  console.error = () => {}; // the failure is logged; keep the test output quiet
  try {
    assert.equal((await post(JSON.stringify(failing))).status, 500);
  } finally {
    console.error = original;
  }
});

test('answers an action, or an action with a debug note cut to 1 KiB of UTF-8', () => {
  const action = { type: 'concede' };
  assert.deepEqual(answerOf(action), { action });
  assert.deepEqual(answerOf({ action, debug: 'why' }), { action, debug: 'why' });
  assert.deepEqual(answerOf({ action, note: 'old name' }), { action, debug: 'old name' });
  assert.equal(answerOf({ action, debug: 'x'.repeat(2000) }).debug.length, 1024);
  const cut = answerOf({ action, debug: 'a' + '€'.repeat(400) }).debug; // € is 3 bytes
  assert.equal(cut, 'a' + '€'.repeat(341));
});
