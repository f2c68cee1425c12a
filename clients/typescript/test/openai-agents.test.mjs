// The OpenAI Agents SDK adapter, driven by the SDK itself offline: a run whose model is
// scripted to call two function tools, then answer. Its cards are the ones toolview's
// presenters give for those tools and results.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Agent, Runner, tool, Usage } from "@openai/agents-core";
import { isReset } from "@toolview/client";
import { connect } from "@toolview/client/node";
import { ToolviewRunHooks } from "@toolview/client/openai-agents";
import { z } from "zod";
import { Server } from "./server.mjs";

let server;
before(async () => (server = await new Server().start()));
after(() => server.stop());

const CALLS = [
  ["call_read_1", "read", { file_path: "/work/app.ts" }],
  ["call_bash_1", "bash", { command: "npm test", description: "Run the tests" }],
];
const READ_RESULT = "<path>/work/app.ts</path>\n<type>file</type>\n<content>\n1: export const port = 8080\n</content>";
const BASH_RESULT = "> vitest run\nTests 3 passed";

/** A model that asks for both tools at once, then answers; no network. */
class ScriptedModel {
  calls = 0;
  async getResponse() {
    this.calls += 1;
    const usage = new Usage({ requests: 1, inputTokens: 100, outputTokens: 10, totalTokens: 110 });
    if (this.calls === 1) {
      const output = CALLS.map(([callId, name, args], i) => ({
        type: "function_call",
        id: `fc_${i}`,
        callId,
        name,
        arguments: JSON.stringify(args),
        status: "completed",
      }));
      return { usage, output, responseId: "r1" };
    }
    const output = [
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "The port is read from PORT." }],
      },
    ];
    return { usage, output, responseId: "r2" };
  }
  // biome-ignore lint/correctness/useYield: the SDK's Model interface wants a generator; unused here
  async *getStreamedResponse() {
    throw new Error("the test runs without streaming");
  }
}

test("an OpenAI Agents run publishes its calls as toolview presents them", async () => {
  const read = tool({
    name: "read",
    description: "Reads a file.",
    parameters: z.object({ file_path: z.string() }),
    execute: async () => READ_RESULT,
  });
  const bash = tool({
    name: "bash",
    description: "Runs a command.",
    parameters: z.object({ command: z.string(), description: z.string() }),
    execute: async () => BASH_RESULT,
  });
  const agent = new Agent({ name: "coder", instructions: "Code.", model: new ScriptedModel(), tools: [read, bash] });
  const client = connect(server.address);
  const hooks = new ToolviewRunHooks(client.session("openai"));
  const runner = new Runner({ tracingDisabled: true });
  const detach = hooks.attach(runner);
  await hooks.prompt("Where does the port come from?");
  const result = await runner.run(agent, "Where does the port come from?");
  detach();
  await hooks.settled();
  await client.flush();
  assert.equal(result.finalOutput, "The port is read from PORT.");

  // The turn, the prompt (2), two calls (2 each), the answer (2), the turn's end.
  const events = 1 + 2 + 4 + 2 + 1;
  const cards = new Map();
  const everyCard = { terminal: true, diff: true, read: true, search: true, web: true };
  const subscription = await client.subscribe("openai", { capabilities: everyCard });
  let seen = 0;
  for await (const item of subscription) {
    assert.ok(!isReset(item));
    if (item.body.case === "view" && item.body.value.update.case === "card")
      cards.set(item.callId, item.body.value.update.value);
    if (++seen === events) break;
  }
  assert.deepEqual(
    [...cards.keys()],
    CALLS.map(([callId]) => callId),
  );
  for (const [[callId, name, args], text] of CALLS.map((c, i) => [c, [READ_RESULT, BASH_RESULT][i]])) {
    const card = cards.get(callId);
    const presented = await client.present(name, args, text);
    assert.equal(card.toolName, name);
    assert.deepEqual(card.call, presented.call, name);
    assert.deepEqual(card.result, presented.result, name);
  }
  assert.equal(cards.get("call_bash_1").call.card.case, "terminal");
  const info = await client.getSession("openai");
  assert.equal(info.title, "Where does the port come from?");
  assert.equal(info.headOffset, BigInt(events));
  await client.close();
});
