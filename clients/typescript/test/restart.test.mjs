// 1,000 events published while the server is killed (SIGKILL) and restarted mid-way: the
// subscriber, in another process, ends with exactly the 1,000 updates in order, and the log
// holds each event once — the publisher's retries were duplicates, never second events.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connect } from "@toolview/client/node";
import { nodeProcess, Server } from "./server.mjs";

const CALLS = 250;
const EVENTS = 4 * CALLS;

test("a server restart loses and repeats nothing", async () => {
  const server = await new Server().start();
  try {
    const subscriber = nodeProcess("subscriber.mjs", server.address, "restart", String(EVENTS));
    assert.equal((await subscriber.lines.next()).value, "subscribed");
    const publisher = nodeProcess("publisher.mjs", server.address, "restart", String(CALLS));

    for (;;) {
      const { value, done } = await publisher.lines.next();
      assert.ok(!done, `the publisher ended early: ${publisher.stderrText}`);
      if (value.startsWith("acked") && Number(value.split(" ")[1]) >= 300) break;
    }
    await server.kill();
    await new Promise((r) => setTimeout(r, 500));
    await server.start();

    const publisherLines = [];
    for await (const line of publisher.lines) publisherLines.push(line);
    assert.equal(await publisher.done, 0, publisher.stderrText);
    const counts = publisherLines.at(-1).split(" ");
    console.log(`publisher: ${publisherLines.at(-1)}`);
    assert.ok(Number(counts[1]) > 0, `the kill did not land mid-publish: ${publisherLines.at(-1)}`);

    const lines = [];
    for await (const line of subscriber.lines) lines.push(line);
    assert.equal(await subscriber.done, 0, subscriber.stderrText);
    console.log(`subscriber: ${lines.at(-1)}`);
    assert.match(lines.at(-1), /^reconnects [1-9]/);
    const updates = lines.slice(0, -1).map((l) => JSON.parse(l));
    assert.ok(!updates.some((u) => "reset" in u), "the log survived the restart: no reset");
    assert.deepEqual(
      updates.map((u) => u.offset),
      Array.from({ length: EVENTS }, (_, i) => i + 1),
    );
    for (const u of updates) {
      const [i, step] = [Math.floor((u.offset - 1) / 4), (u.offset - 1) % 4];
      assert.equal(u.call, `c${i}`);
      if (step === 3) assert.ok(u.md.includes("Status: Completed") && u.md.includes(`line ${i}.2`), u.md);
      else assert.ok(u.md.includes("Status: In Progress"), u.md);
    }

    const info = await connect(server.address).getSession("restart");
    assert.equal(info.headOffset, BigInt(EVENTS));
    assert.equal(info.calls, BigInt(CALLS));
  } finally {
    await server.stop();
  }
});
