// The webhook server: the handshake, signed decisions, and your decide function.
//
// GET answers the platform's handshake with {name, protocol_version: 1}. POST carries
// one decision: its signature and timestamp are checked first (401 otherwise), then the
// body is parsed (400 if it is not a decision) and decide's action is answered as
// {"action": ...}. If decide throws, the answer is 500: the platform strikes the seat
// and plays its safe default. Only node:http; connections are kept alive, as the
// platform reuses them.

import { createServer } from 'node:http';

import { TOLERANCE_SECONDS, verify } from './signature.js';

export const PROTOCOL_VERSION = 1;
export const MAX_BODY_BYTES = 1 << 20;
export const MAX_DEBUG_BYTES = 1024; // the platform keeps this much of a debug note

/** An http.Server for the bot; call .listen(port, host) to serve. */
export function createBotServer({
  secret,
  decide,
  name = 'js-starter',
  tolerance = TOLERANCE_SECONDS,
}) {
  if (!secret) throw new Error('the bot needs its version\'s secret (CYA_SECRET)');
  const server = createServer((request, response) => {
    if (request.method === 'GET') {
      send(response, 200, { name, protocol_version: PROTOCOL_VERSION });
      return;
    }
    if (request.method !== 'POST') {
      send(response, 405, { error: 'GET (handshake) or POST (decision) only' });
      return;
    }
    readBody(request, (error, body) => {
      if (error) {
        send(response, 413, { error: error.message }, true);
        return;
      }
      answer(request, body, response);
    });
  });

  function answer(request, body, response) {
    const timestamp = request.headers['x-cya-timestamp'];
    const signature = request.headers['x-cya-signature'];
    const now = Date.now() / 1000;
    if (!verify(secret, timestamp, body, signature, { now, tolerance })) {
      send(response, 401, { error: 'bad or stale signature' });
      return;
    }
    let decision;
    try {
      decision = JSON.parse(body.toString('utf8'));
    } catch {
      send(response, 400, { error: 'the body is not JSON' });
      return;
    }
    if (decision === null || typeof decision !== 'object' || decision.type !== 'decision') {
      send(response, 400, { error: 'expected {"type": "decision", ...}' });
      return;
    }
    try {
      send(response, 200, answerOf(decide(decision)));
    } catch (failure) {
      console.error(`decide failed on decision ${decision.decision_id}:`, failure);
      send(response, 500, { error: 'decide failed' });
    }
  }

  server.keepAliveTimeout = 65_000;
  return server;
}

/**
 * decide may return the action itself, or {action, debug} to leave a debug note in the
 * bot's decision log, which only its owner sees beside the replay (cut to 1 KiB of UTF-8;
 * `note`, its older name, is sent as `debug`).
 */
export function answerOf(choice) {
  if (choice && typeof choice === 'object' && !('type' in choice) && 'action' in choice) {
    const answer = { action: choice.action };
    const debug = choice.debug ?? choice.note;
    if (typeof debug === 'string') answer.debug = debugNote(debug);
    return answer;
  }
  return { action: choice };
}

/** A debug note cut to MAX_DEBUG_BYTES of UTF-8, never inside a character. */
export function debugNote(text) {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_DEBUG_BYTES) return text;
  let end = MAX_DEBUG_BYTES;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1; // back to a character's start
  return bytes.subarray(0, end).toString('utf8');
}

function readBody(request, done) {
  const chunks = [];
  let size = 0;
  let failed = false;
  request.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES && !failed) {
      failed = true;
      done(new Error(`bodies over ${MAX_BODY_BYTES} bytes are refused`));
      request.resume();
      return;
    }
    if (!failed) chunks.push(chunk);
  });
  request.on('end', () => {
    if (!failed) done(null, Buffer.concat(chunks));
  });
}

function send(response, status, body, close = false) {
  const data = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(data),
    ...(close ? { Connection: 'close' } : {}),
  });
  response.end(data);
}
