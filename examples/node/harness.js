// A Node.js agent harness publishing a realistic session to toolview: one turn of a conversation
// (a prompt, reasoning, the agent's words streamed in deltas, five tool calls, its answer, the
// turn's end with its token usage).
//
//   node harness.js --server 127.0.0.1:50051 --session node-demo [--token JWT] [--tls-ca ca.pem]
const { arg, sessionClient } = require('./toolview');

const client = sessionClient(arg('server', '127.0.0.1:50051'));
const session = arg('session', 'node-demo');
let n = 0;

function publish(event) {
  n += 1;
  const ev = { sessionId: session, eventId: `node-${n}`, ...event };
  return new Promise((resolve, reject) =>
    client.publish({ events: [ev] }, (err, res) => {
      if (err) return reject(err);
      const ack = res.acks[0];
      console.log(`acked ${ack.eventId} at offset ${ack.cursor.offset}`);
      resolve(ack);
    }),
  );
}

const text = (t) => ({ text: { text: t } });
const start = (callId, toolName, args) =>
  publish({ callStarted: { callId, toolName, argumentsJson: JSON.stringify(args) } });
const output = (callId, data) => publish({ callOutput: { callId, data } });
const finish = (callId, result, meta) =>
  publish({ callFinished: { callId, content: [text(result)], isError: false, metaJson: meta ? JSON.stringify(meta) : '' } });

// A message streamed as its first part, then deltas, then its end.
async function message(messageId, role, first, ...deltas) {
  await publish({ messageStarted: { messageId, role, text: first } });
  for (const text of deltas) await publish({ messageDelta: { messageId, text } });
  await publish({ messageFinished: { messageId } });
}

async function main() {
  await publish({ sessionStarted: { cwd: '/work/proj' } });
  await publish({ turnStarted: { turnId: 'turn-1' } });
  await message('user-1', 'MESSAGE_ROLE_USER', 'Make the port configurable and check the tests.');
  await message('think-1', 'MESSAGE_ROLE_REASONING', 'The port is hard-coded; ', 'read it from PORT.');
  await message('say-1', 'MESSAGE_ROLE_ASSISTANT', "I'll read the config ", 'and run the tests.');
  const lines = ['export const port = 8080', '// TODO: read from env'];

  await start('read-1', 'read', { file_path: '/work/proj/src/app.ts' });
  await finish(
    'read-1',
    `<path>/work/proj/src/app.ts</path>\n<type>file</type>\n<content>\n${lines.map((l, i) => `${i + 1}: ${l}`).join('\n')}\n</content>`,
    { path: '/work/proj/src/app.ts', offset: 1, totalLines: 2, lang: 'ts', lines: lines.map((text, i) => ({ number: i + 1, text })) },
  );

  const before = lines.join('\n') + '\n';
  const after = before.replace('8080', 'Number(process.env.PORT)');
  await start('edit-1', 'edit', { file_path: 'src/app.ts', old_string: '8080', new_string: 'Number(process.env.PORT)' });
  await finish('edit-1', 'The file was updated.', { before, after });

  await start('bash-1', 'bash', { command: 'npm test', description: 'Run the tests' });
  await output('bash-1', '> vitest run\n');
  await output('bash-1', ' FAIL  src/app.test.ts\n');
  await finish('bash-1', '> vitest run\n FAIL  src/app.test.ts\nTests  1 failed\n[exit code: 2]');

  await start('grep-1', 'grep', { pattern: 'TODO', path: 'src' });
  await finish('grep-1', 'Found 1 match', {
    shape: 'matches', truncated: false, total: 1,
    files: [{ path: 'src/app.ts', matches: [{ lineNumber: 2, line: '// TODO: read from env' }] }],
  });

  await start('fetch-1', 'web_fetch', { url: 'https://vitest.dev/guide/' });
  await finish('fetch-1', '# Getting Started', { url: 'https://vitest.dev/guide/', statusCode: 200, truncated: false });

  await message('say-2', 'MESSAGE_ROLE_ASSISTANT', 'Done: the port comes from PORT; one test still fails.');
  await publish({
    turnFinished: {
      turnId: 'turn-1',
      stopReason: 'STOP_REASON_END_TURN',
      usage: { inputTokens: '1200', outputTokens: '340', contextTokens: '5400', contextWindow: '200000' },
    },
  });
  client.close();
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
