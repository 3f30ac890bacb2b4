// A Cover Your Assets webhook bot for Node 20: only node:http and node:crypto.
//
//   CYA_SECRET=<the version's secret> PORT=9002 node bot.js
//
// Enter http(s)://<your host>:<port>/ and the secret as a new version of a webhook bot
// (docs/bot-protocol.md); put it behind HTTPS when it is reachable from the internet.
// Change strategy.js to make it yours: decide(decision) returns one of
// decision.legal_actions. PORT=0 picks a free port; HOST defaults to 127.0.0.1.

import { fileURLToPath } from 'node:url';

import { createBotServer } from './server.js';
import { decide } from './strategy.js';

export function main(env = process.env) {
  if (!env.CYA_SECRET) {
    console.error('cya-bot: set CYA_SECRET to the bot version\'s secret');
    process.exit(1);
  }
  const port = Number(env.PORT ?? 9002);
  const host = env.HOST ?? '127.0.0.1';
  const name = env.BOT_NAME ?? 'js-starter';
  const server = createBotServer({ secret: env.CYA_SECRET, decide, name });
  server.listen(port, host, () => {
    const { port: bound } = server.address();
    console.log(`cya-bot: listening on http://${host}:${bound}/`);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
  }
  return server;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
