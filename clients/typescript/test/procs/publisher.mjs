// Publishes CALLS calls (start, two output chunks, finish: 4 events each), paced so that a
// server restart lands mid-way; prints "acked N" as it goes, then its retry counts.
import { connect } from "@toolview/client/node";

const [server, sessionId, calls] = process.argv.slice(2);
const client = connect(server);
const session = client.session(sessionId);
for (let i = 0; i < Number(calls); i++) {
  const call = await session.startCall("bash", { command: `echo ${i}` }, { callId: `c${i}` });
  await call.output(`line ${i}.1\n`);
  await call.output(`line ${i}.2\n`);
  await call.finish(`line ${i}.1\nline ${i}.2\n`, { meta: { exitCode: 0 } });
  if (i % 25 === 24) {
    // Only to tell the test how far it got; the client batches on its own.
    await client.flush();
    console.log(`acked ${4 * (i + 1)}`);
  }
  await new Promise((r) => setTimeout(r, 4));
}
await client.close();
console.log(`retries ${client.publisher.retries} duplicates ${client.publisher.duplicates}`);
