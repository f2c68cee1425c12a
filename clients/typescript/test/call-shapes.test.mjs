// Calls as models make them, published with this package against a real server: a call whose
// input streams is pending with its input so far, then shows the presenters' card; misuse is
// refused before anything is sent.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { CallStatus, UsageError } from "@toolview/client";
import { connect } from "@toolview/client/node";
import { Server } from "./server.mjs";

let server;
before(async () => (server = await new Server().start()));
after(() => server.stop());

async function take(subscription, n) {
  const items = [];
  for await (const item of subscription) {
    items.push(item);
    if (items.length === n) break;
  }
  return items;
}

const ARGS = { command: "cargo test --workspace", description: "Run every test" };

test("a streaming call is pending with its input, then the presenters' card", async () => {
  const client = connect(server.address);
  const text = JSON.stringify(ARGS);
  const session = client.session("streams");
  const call = await session.startCall("Bash", text.slice(0, 12), { callId: "b1", streaming: true });
  await call.inputDelta(text.slice(12, 40));
  await call.inputDelta(text.slice(40));
  await call.inputComplete(ARGS);
  await call.output("running 3 tests\n");
  await call.finish("test result: ok");
  await client.flush();
  assert.equal((await client.getSession("streams")).headOffset, 6n);

  const views = (
    await take(
      await client.subscribe("streams", { target: "view", capabilities: { outputAppends: true, terminal: true } }),
      6,
    )
  ).map((u) => u.body.value.update);
  assert.equal(views[0].case, "card");
  assert.equal(views[0].value.status, CallStatus.PENDING);
  let input = views[0].value.input;
  for (const v of views.slice(1, 3)) input = v.case === "card" ? v.value.input : input + v.value.text;
  assert.equal(input, text);
  assert.equal(views[3].value.status, CallStatus.IN_PROGRESS);
  assert.equal(views[3].value.call.card.case, "terminal");

  const chunks = (await take(await client.subscribe("streams", { target: "ai_sdk" }), 6))
    .flatMap((u) => u.body.value.json)
    .map((j) => JSON.parse(j));
  const deltas = chunks.filter((c) => c.type === "tool-input-delta").map((c) => c.inputTextDelta);
  assert.equal(deltas.join(""), text);
  assert.deepEqual(chunks.find((c) => c.type === "tool-input-available").input, ARGS);
  await client.close();
});

test("streaming misuse is refused before anything is sent", async () => {
  const client = connect(server.address);
  const session = client.session("stream-misuse");
  const whole = await session.startCall("bash", { command: "true" }, { callId: "c1" });
  await assert.rejects(whole.inputDelta("x"), UsageError);
  await whole.finish("ok");
  await assert.rejects(session.startCall("bash", { command: "true" }, { callId: "c2", streaming: true }), UsageError);
  const streaming = await session.startCall("bash", '{"command": "tr', { callId: "c3", streaming: true });
  await assert.rejects(streaming.output("early"), /inputComplete first/);
  await streaming.inputComplete({ command: "true" });
  await assert.rejects(streaming.inputComplete({ command: "true" }), UsageError);
  await streaming.finish("ok");
  await client.flush();
  assert.equal((await client.getSession("stream-misuse")).headOffset, 5n);
  await client.close();
});

test("a subagent's calls nest under the call that runs it", async () => {
  const client = connect(server.address);
  const session = client.session("nests");
  const task = await session.startCall(
    "Task",
    { description: "Find the flaky test", prompt: "Look." },
    { callId: "t1" },
  );
  await session.message("assistant", "Searching.", { messageId: "m1", parent: task });
  const grep = await task.childCall("Grep", { pattern: "flaky" }, { callId: "g1" });
  await grep.finish("tests/net.rs:12");
  const bash = await session.startCall("Bash", { command: "cargo test" }, { callId: "b1", parent: "t1" });
  const read = await bash.childCall("Read", { file_path: "/tmp/log" }, { callId: "r1" });
  await read.finish("not found", { isError: true });
  await bash.finish("ok");
  await task.finish("net::reconnect");
  await assert.rejects(session.startCall("Bash", { command: "true" }, { callId: "self", parent: "self" }), UsageError);
  await client.flush();

  const views = (await take(await client.subscribe("nests", { target: "view" }), 10)).map((u) => u.body.value.update);
  const cards = Object.fromEntries(views.filter((v) => v.case === "card").map((v) => [v.value.callId, v.value]));
  assert.deepEqual([cards.g1.parentCallId, cards.g1.depth], ["t1", 1]);
  assert.deepEqual([cards.r1.parentCallId, cards.r1.depth], ["b1", 2]);
  const message = views.find((v) => v.case === "message").value;
  assert.deepEqual([message.parentCallId, message.depth], ["t1", 1]);
  const progress = cards.t1.children;
  assert.deepEqual([progress.running, progress.done, progress.failed], [0, 2, 0]);
  assert.equal(cards.b1.children.failed, 1);
  await client.close();
});

test("an MCP tool's result passed through keeps its app on the card", async () => {
  const client = connect(server.address);
  const call = await client.session("mcp").startCall("get_weather", { city: "Paris" }, { callId: "w1" });
  // What an MCP client got back, passed through as the result's meta.
  const meta = {
    _meta: { ui: { resourceUri: "ui://weather/view" } },
    structuredContent: { city: "Paris", temp: 21 },
    mcpServer: { serverId: "weather", type: "http", url: "http://127.0.0.1:3001/mcp" },
  };
  await call.finish("21 °C in Paris", { meta });
  await client.flush();
  const [, finished] = (await take(await client.subscribe("mcp", { target: "view" }), 2)).map(
    (u) => u.body.value.update.value,
  );
  assert.equal(finished.mcpApp.resourceUri, "ui://weather/view");
  assert.equal(finished.mcpApp.serverId, "weather");
  assert.deepEqual(JSON.parse(finished.mcpApp.structuredContentJson), { city: "Paris", temp: 21 });
  await client.close();
});
