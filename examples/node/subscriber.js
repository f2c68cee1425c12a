// A Node.js UI subscriber: prints a session rendered as Markdown.
//
//   node subscriber.js --server 127.0.0.1:50051 --session node-demo [--count N] [--token JWT] [--tls-ca ca.pem]
const { arg, sessionClient } = require('./toolview');

const client = sessionClient(arg('server', '127.0.0.1:50051'));
const count = Number(arg('count', '0'));
const call = client.subscribe({
  sessionId: arg('session', 'node-demo'),
  target: 'TARGET_MARKDOWN',
  fromBeginning: {},
});

let seen = 0;
call.on('data', (msg) => {
  if (!msg.update) return;
  seen += 1;
  if (msg.update.markdown) {
    console.log(`--- offset ${msg.update.cursor.offset}`);
    console.log(msg.update.markdown);
  }
  if (count && seen >= count) {
    call.cancel();
    client.close();
  }
});
call.on('error', (err) => {
  if (err.code !== 1) {
    // 1 = CANCELLED, which is how this subscriber stops itself.
    console.error(err.message);
    process.exit(1);
  }
});
