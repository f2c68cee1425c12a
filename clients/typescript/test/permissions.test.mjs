// Permission requests from the harness side against a real server: a call asks and waits, a UI
// answers, the first answer wins and a late one learns the winner; nobody answering in time is
// the reject option; one-sided options are refused before anything is sent.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { allowOnce, answerPermission, rejectOnce, responder, UsageError } from "@toolview/client";
import { connect } from "@toolview/client/node";
import { Server } from "./server.mjs";

let server;
before(async () => (server = await new Server().start()));
after(() => server.stop());

test("a call asks and the first answer wins", async () => {
  const harness = connect(server.address);
  const ui = connect(server.address);
  const call = await harness.session("perm").startCall("bash", { command: "rm -rf build", description: "Clean" });
  const asked = call.requestPermission("Run rm -rf build?", undefined, {
    requestId: "ask-1",
    description: "Deletes build/",
  });
  let answer;
  for (;;) {
    try {
      answer = await ui.respondPermission("perm", "ask-1", "reject", { reason: "not now", via: "test" });
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50)); // not published yet
    }
  }
  assert.equal(answer.won, true);
  assert.deepEqual([answer.decision.outcome, answer.decision.optionId], ["selected", "reject"]);
  const late = await ui.respondPermission("perm", "ask-1", "allow");
  assert.equal(late.won, false);
  assert.equal(late.decision.optionId, "reject");
  const decision = await asked;
  assert.deepEqual([decision.optionId, decision.kind, decision.allowed], ["reject", "reject_once", false]);
  assert.equal(responder(decision), "someone via test");
  assert.equal(decision.reason, "not now");
  await harness.close();
  await ui.close();
});

test("nobody answering in time is the reject option", async () => {
  const client = connect(server.address);
  const decision = await client
    .session("perm")
    .requestPermission("Push to main?", [allowOnce(), rejectOnce("no", "No")], { timeoutMs: 300 });
  assert.deepEqual(
    [decision.outcome, decision.optionId, decision.kind, decision.allowed],
    ["expired", "no", "reject_once", false],
  );
  assert.deepEqual([decision.subject, decision.via], ["toolview", "server"]);
  await client.close();
});

test("one-sided options are refused before anything is sent", async () => {
  const client = connect(server.address);
  await assert.rejects(client.session("perm").requestPermission("Sure?", [allowOnce()]), UsageError);
  await client.close();
});

test("a page answers over HTTP once; a decided request is no error; a bad id is named", async () => {
  const harness = connect(server.address);
  const base = `http://${server.address}`;
  const call = await harness.session("perm-http").startCall("bash", { command: "make", description: "Build" });
  const asked = call.requestPermission("Run make?", undefined, { requestId: "ask-http" });
  let why = "not yet";
  for (let i = 0; i < 100 && why !== undefined; i++) {
    why = await answerPermission(base, "perm-http", "ask-http", "allow", { via: "page" });
    if (why !== undefined) await new Promise((r) => setTimeout(r, 50)); // not published yet
  }
  assert.equal(why, undefined);
  assert.equal(await answerPermission(base, "perm-http", "ask-http", "reject"), undefined, "decided already");
  const decision = await asked;
  assert.deepEqual([decision.optionId, decision.allowed], ["allow", true]);
  assert.equal(responder(decision), "someone via page");
  const bad = await answerPermission(base, "perm-http", "a/../b", "allow");
  assert.match(bad, /^not answered: /);
  await harness.close();
});
