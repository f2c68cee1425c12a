// The client against a real server: a turn published and read back, typed refusals, the
// bounded buffer with the server away, a live start, the unary calls, and the CommonJS build.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  BufferFull,
  ClientClosed,
  CursorSchema,
  eventId,
  fieldViolation,
  isReset,
  isSessionId,
  permissionPath,
  SessionService,
  SessionState,
  SYNCED,
  safeId,
  ToolCallOutputSchema,
  ToolCallViewSchema,
  ToolEventSchema,
  ToolResultViewSchema,
  ToolviewError,
  Undelivered,
  UsageError,
} from "@toolview/client";
import { connect } from "@toolview/client/node";
import { connect as connectWeb } from "@toolview/client/web";
import { Server } from "./server.mjs";

let server;
before(async () => (server = await new Server().start()));
after(() => server.stop());

/** The first `n` items of a subscription, which is then closed. */
async function take(subscription, n) {
  const items = [];
  for await (const item of subscription) {
    items.push(item);
    if (items.length === n) break;
  }
  return items;
}

async function publishTurn(client, sessionId) {
  const session = client.session(sessionId);
  await session.start("/work/proj");
  const turn = await session.startTurn("turn-1");
  await session.message("user", "Run the tests.", { messageId: "user-1" });
  const thought = await session.startMessage("reasoning", "They use ", { messageId: "think-1" });
  await thought.append("vitest.");
  await thought.finish();
  const call = await session.startCall("bash", { command: "npm test" }, { callId: "call_1" });
  await call.output("> vitest run\n");
  await call.finish("> vitest run\nTests  1 failed\n[exit code: 2]", { isError: true });
  await session.message("assistant", "One test fails.");
  await turn.finish("end_turn", { inputTokens: 100n, outputTokens: 20n });
}

test("a turn reads back in every form", async () => {
  const client = connect(server.address);
  await publishTurn(client, "demo");
  await client.flush();
  const info = await client.getSession("demo");
  assert.deepEqual([info.headOffset, info.calls, info.title, info.cwd], [13n, 1n, "Run the tests.", "/work/proj"]);
  // A server without auth grants every right: a UI may show the prompts' buttons.
  assert.deepEqual(info.rights, ["publish", "subscribe", "read", "approve"]);

  const markdown = (await take(await client.subscribe("demo", { target: "markdown" }), 13)).map((u) => u.body.value);
  const text = markdown.join("\n");
  assert.ok(text.includes("**User:**\n\nRun the tests.") && text.includes("Status: Failed"), text);
  assert.ok(!text.includes("vitest."), "reasoning is shown only with the capability");

  const acp = (await take(await client.subscribe("demo", { target: "acp", capabilities: { reasoning: true } }), 13))
    .flatMap((u) => u.body.value.json)
    .map((j) => JSON.parse(j));
  const kinds = acp.filter((m) => m.method === "session/update").map((m) => m.params.update.sessionUpdate);
  assert.ok(kinds.includes("agent_thought_chunk") && kinds.includes("tool_call"), kinds.join());

  const listed = [];
  for await (const s of client.listSessions(1)) listed.push(s.sessionId);
  assert.deepEqual(listed, ["demo"]);
  // Each with its summary; the state filters by it.
  const idle = [];
  for await (const s of client.listSessions({ states: ["idle"] })) idle.push(s);
  assert.equal(idle.length, 1);
  assert.equal(idle[0].summary.state, SessionState.IDLE);
  assert.equal(idle[0].summary.turns, 1n);
  const waiting = [];
  for await (const s of client.listSessions({ states: ["requires_action", "running"] })) waiting.push(s);
  assert.deepEqual(waiting, []);
  await client.close();
});

test("a fleet watch gives the first page, SYNCED, then each summary change", async () => {
  const client = connect(server.address);
  await client.session("fleet-a").start("/fleet-only");
  await client.flush();
  const abort = new AbortController();
  const watch = client.watchSessions({ cwdPrefix: "/fleet-only", signal: abort.signal })[Symbol.asyncIterator]();
  const first = (await watch.next()).value;
  assert.equal(first.sessionId, "fleet-a");
  assert.equal(first.summary.state, SessionState.IDLE);
  assert.equal((await watch.next()).value, SYNCED);
  // A turn starts: the state changes, so the watch hears it at once.
  await client.session("fleet-a").startTurn("t1");
  await client.flush();
  const running = (await watch.next()).value;
  assert.equal(running.sessionId, "fleet-a");
  assert.equal(running.summary.state, SessionState.RUNNING);
  // The harness closes it: ended, until anything starts again.
  await client.session("fleet-a").end("the user closed the tab");
  await client.flush();
  assert.equal((await watch.next()).value.summary.state, SessionState.ENDED);
  const ended = [];
  for await (const s of client.listSessions({ states: ["ended"] })) ended.push(s.sessionId);
  assert.deepEqual(ended, ["fleet-a"]);
  abort.abort();
  await watch.return();
  await client.close();
});

test("a watch from a time gets what changed since, in any state", async () => {
  const client = connect(server.address);
  await client.session("since-still").start("/since-only");
  await client.flush();
  const before = (await client.getSession("since-still")).updatedAt;
  // Later than the unchanged session (the server's times are in milliseconds).
  await new Promise((resolve) => setTimeout(resolve, 5));
  await client.session("since-moved").start("/since-only");
  await client.session("since-moved").startTurn("t1");
  await client.flush();
  const since = new Date(Number(before.seconds) * 1000 + Math.floor(before.nanos / 1e6) + 1);
  const abort = new AbortController();
  const watch = client
    .watchSessions({ states: ["idle"], cwdPrefix: "/since-only", updatedSince: since, signal: abort.signal })
    [Symbol.asyncIterator]();
  const first = (await watch.next()).value;
  // Running, so outside the `idle` filter: a resuming watcher still hears it.
  assert.deepEqual([first.sessionId, first.summary.state], ["since-moved", SessionState.RUNNING]);
  assert.equal((await watch.next()).value, SYNCED, "since-still did not change since");
  abort.abort();
  await watch.return();
  await client.close();
});

test("a live subscription starts after the head", async () => {
  const client = connect(server.address);
  await publishTurn(client, "live");
  await client.flush();
  const subscription = await client.subscribe("live", { start: "live" });
  await client.session("live").message("user", "And now?");
  await client.flush();
  const [first] = await take(subscription, 1);
  assert.ok(!isReset(first));
  assert.equal(first.cursor.offset, 14n);
  await client.close();
});

test("refusals are typed and name the field", async () => {
  const client = connect(server.address);
  const session = client.session("bad");
  const call = await session.startCall("bash", { command: "true" }, { callId: "c1" });
  await call.finish("ok");
  // Output after the call's end breaks the lifecycle rule.
  const stray = create(ToolEventSchema, {
    eventId: "stray-1",
    event: { case: "callOutput", value: create(ToolCallOutputSchema, { callId: "c1", data: "x" }) },
  });
  await session.publish(stray);
  await session.message("user", "still here");
  const refused = await client.flush().then(
    () => undefined,
    (e) => e,
  );
  assert.ok(refused instanceof ToolviewError, String(refused));
  assert.equal(refused.code, Code.FailedPrecondition);
  assert.ok(refused.eventIndex !== undefined && refused.details.includes("already finished"), refused.message);
  assert.deepEqual(
    refused.failures.map((f) => f.event.eventId),
    ["stray-1"],
  );
  // Only the refused event was dropped.
  assert.equal((await client.getSession("bad")).headOffset, 4n);

  await session.publish(create(ToolEventSchema, { eventId: "bad id", event: { case: "sessionStarted", value: {} } }));
  const invalid = await client.flush().then(
    () => undefined,
    (e) => e,
  );
  assert.equal(invalid.code, Code.InvalidArgument);
  assert.equal(invalid.field, "events[0].event_id");
  // The server sends the field apart, as a google.rpc.BadRequest detail.
  const stub = createClient(SessionService, createGrpcTransport({ baseUrl: `http://${server.address}` }));
  const bad = create(ToolEventSchema, {
    sessionId: "bad",
    eventId: "bad id",
    event: { case: "sessionStarted", value: {} },
  });
  const raw = await stub.publish({ events: [bad] }).then(
    () => undefined,
    (e) => e,
  );
  assert.equal(fieldViolation(raw), "events[0].event_id");
  const missing = await client.getSession("never").then(
    () => undefined,
    (e) => e,
  );
  assert.equal(missing.code, Code.NotFound);
  await client.close();
});

test("the buffer is bounded while the server is away", async () => {
  const away = await new Server().start();
  await away.kill();
  const client = connect(away.address, { publish: { maxBufferedEvents: 5, blockTimeoutMs: 200 } });
  const session = client.session("away");
  for (let i = 0; i < 5; i++) await session.startCall("bash", {}, { callId: `c${i}` });
  await assert.rejects(session.startCall("bash", {}, { callId: "c5" }), BufferFull);
  // The server comes back on the same port: the buffered events go through.
  await away.start();
  await client.flush(30_000);
  assert.equal((await client.getSession("away")).headOffset, 5n);
  assert.ok(client.publisher.retries > 0);
  await client.close();
  await away.kill();
  const gone = connect(away.address, { publish: { initialBackoffMs: 10 } });
  await gone.session("away").startCall("bash");
  const undelivered = await gone.close(300).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(undelivered instanceof Undelivered && undelivered.pending === 1, String(undelivered));
  await away.stop();
});

test("a closed port is named at once and in the Undelivered error", async (t) => {
  // Port 1: nothing listens there, and no parallel test's server can take it.
  const address = "127.0.0.1:1";
  const warn = t.mock.method(console, "warn", () => {});
  const gone = connect(address, { publish: { initialBackoffMs: 10, maxBackoffMs: 50 } });
  for (let i = 0; i < 25; i++) await gone.session("away").startCall("bash", {}, { callId: `c${i}` });
  const undelivered = await gone.close(1000).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(undelivered instanceof Undelivered && undelivered.pending === 25, String(undelivered));
  assert.match(undelivered.message, /ECONNREFUSED|refused/i);
  // One warning for the outage, not one per retry, saying why.
  const warnings = warn.mock.calls.map((c) => String(c.arguments[0]));
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(warnings[0], /ECONNREFUSED|refused/i);
});

test("present and render need no session", async () => {
  const client = connect(server.address);
  const presented = await client.present("read", { file_path: "/work/app.ts" });
  assert.equal(presented.call.card.case, "generic");
  assert.equal(presented.call.card.value.title, "Read /work/app.ts");
  const event = create(ToolEventSchema, {
    sessionId: "x",
    eventId: "1",
    event: { case: "callStarted", value: { callId: "c1", toolName: "bash", argumentsJson: '{"command": "ls"}' } },
  });
  const [update] = await client.render([event], "markdown");
  assert.ok(update.body.value.startsWith("**Tool Call: bash**\nStatus: In Progress"), update.body.value);
});

test("ids are derived, and follow the server's rule", () => {
  assert.equal(eventId("call", "toolu_01", 3), "call:toolu_01:3");
  assert.match(eventId("call", "x".repeat(128), "end"), /^[A-Za-z0-9._:-]{1,128}$/);
  for (const raw of ["a b/c", "ü", "x".repeat(200), "call_abc"]) assert.match(safeId(raw), /^[A-Za-z0-9._:-]{1,128}$/);
  assert.notEqual(safeId("a b"), safeId("a/b"));
  assert.equal(safeId("a b"), safeId("a b"));
});

test("permission paths refuse ids a URL parser would resolve away", () => {
  assert.equal(permissionPath("team-a/run 7".replace(" ", "-"), "perm-1"), "/permissions/team-a/run-7/perm-1");
  for (const session of ["x/../victim", "..", "team-a/.", "a//b", "a b"]) {
    assert.equal(isSessionId(session), false, session);
    assert.throws(() => permissionPath(session, "perm-1"), UsageError, session);
  }
  assert.throws(() => permissionPath("s", ".."), UsageError);
  assert.equal(isSessionId("a.b/.hidden/..."), true);
  // What the browser would do with the path, had it been built: another session's request.
  assert.equal(new URL("/permissions/x/%2E%2E/victim/perm-1", "http://h").pathname, "/permissions/victim/perm-1");
});

test("the CommonJS build loads with require", () => {
  const require = createRequire(import.meta.url);
  const cjs = require("@toolview/client");
  const node = require("@toolview/client/node");
  assert.equal(typeof cjs.Client, "function");
  assert.equal(typeof node.connect, "function");
  assert.equal(cjs.eventId("turn", "t1"), "turn:t1");
});

test("a lost cursor yields a reset, then the session again", async () => {
  const client = connect(server.address);
  await client.session("reset").message("user", "hello");
  await client.flush();
  const stale = create(CursorSchema, { offset: 1n, epoch: "an-epoch-that-is-gone" });
  const items = await take(await client.subscribe("reset", { start: stale }), 3);
  assert.ok(isReset(items[0]));
  assert.equal(items[0].headOffset, 2n);
  assert.deepEqual(
    items.slice(1).map((u) => u.cursor.offset),
    [1n, 2n],
  );
  await client.close();
});

test("custom views replace the presenters", async () => {
  const client = connect(server.address);
  const view = create(ToolCallViewSchema, { card: { case: "generic", value: { title: "Deploy web-1" } } });
  const call = await client.session("custom").startCall("deploy", { host: "web-1" }, { callId: "d1", view });
  await call.finish("ok", {
    view: create(ToolResultViewSchema, { card: { case: "generic", value: { title: "Deployed web-1" } } }),
  });
  await client.flush();
  const [, finished] = await take(await client.subscribe("custom"), 2);
  const card = finished.body.value.update.value;
  assert.equal(card.call.card.value.title, "Deploy web-1");
  assert.equal(card.result.card.value.title, "Deployed web-1");
  await client.close();
});

test("the browser transport (gRPC-Web) publishes and subscribes", async () => {
  // Node has fetch, which is all connect-web needs: the same code runs in a browser.
  const client = connectWeb(`http://${server.address}`);
  const call = await client.session("web").startCall("bash", { command: "ls" }, { callId: "w1" });
  await call.finish("README.md");
  await client.flush();
  const updates = await take(await client.subscribe("web", { target: "markdown" }), 2);
  assert.ok(updates[1].body.value.includes("Status: Completed"), updates[1].body.value);
  await client.close();
});

test("the CLI's URL form names the server", async () => {
  const client = connect(`http://${server.address}/`);
  await client.session("url-form").message("user", "hello");
  await client.flush();
  assert.equal((await client.getSession("url-form")).headOffset, 2n);
  await client.close();
});

test("misuse is refused before anything is sent", async () => {
  const client = connect(server.address);
  try {
    const session = client.session("misuse");
    const call = await session.startCall("bash", { command: "true" }, { callId: "c1" });
    await call.finish("ok");
    await assert.rejects(call.finish("again"), (e) => e instanceof UsageError && /finished twice/.test(e.message));
    await assert.rejects(call.output("late"), (e) => e instanceof UsageError && /after its finish/.test(e.message));
    await assert.rejects(client.session("misuse").startCall("bash", {}, { callId: "c1" }), UsageError);
    await client.flush();
    assert.equal((await client.getSession("misuse")).headOffset, 2n, "only the start and the end were sent");
  } finally {
    await client.close();
  }
  await assert.rejects(client.subscribe("misuse"), ClientClosed);
  await assert.rejects(client.getSession("misuse"), (e) => e instanceof ClientClosed && e instanceof ToolviewError);
});

test("a subscription to a server that is gone gives up at its deadline", async () => {
  const away = await new Server().start();
  const address = away.address;
  await away.kill();
  const client = connect(address);
  try {
    const subscription = await client.subscribe("gone", { reconnectDeadlineMs: 500 });
    await assert.rejects(
      (async () => {
        for await (const _ of subscription) break;
      })(),
      (e) => e instanceof ToolviewError && e.code === Code.Unavailable,
    );
    assert.ok(subscription.reconnects >= 1, "it tried again before giving up");
  } finally {
    await client.close(0).catch(() => {});
  }
});
