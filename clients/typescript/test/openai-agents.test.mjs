// The OpenAI Agents SDK adapter, driven by the SDK itself offline: a run whose model is
// scripted to call two function tools, then answer. Its cards are the ones toolview's
// presenters give for those tools and results.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Agent, Runner, tool, Usage } from "@openai/agents-core";
import { isReset } from "@toolview/client";
import { connect } from "@toolview/client/node";
import { attachMeta, DEFAULT_TOOL_ERROR, ToolviewRunHooks, toolFailure } from "@toolview/client/openai-agents";
import { z } from "zod";
import { Server } from "./server.mjs";

let server;
before(async () => (server = await new Server().start()));
after(() => server.stop());

const CALLS = [
  ["call_read_1", "read", { file_path: "/work/app.ts" }],
  ["call_bash_1", "bash", { command: "npm test", description: "Run the tests" }],
  // Meta attached from inside the tool: a search card.
  ["call_grep_1", "grep", { pattern: "TODO" }],
  // Tools that throw: with the SDK's default error function, and with toolFailure.
  ["call_fetch_1", "web_fetch", { url: "https://example.com" }],
  ["call_kill_1", "job_kill", { job_id: "bash-9" }],
];
const READ_RESULT = "<path>/work/app.ts</path>\n<type>file</type>\n<content>\n1: export const port = 8080\n</content>";
const BASH_RESULT = "> vitest run\nTests 3 passed";
const GREP_RESULT = "src/app.ts:2: // TODO";
const GREP_META = {
  shape: "matches",
  files: [{ path: "src/app.ts", matches: [{ lineNumber: 2, line: "// TODO" }] }],
  truncated: false,
  total: 1,
};
const ANSWER = "The port is read from PORT.";

/** A model that says what it will do and asks for the tools at once, then answers; no network.
 * Streamed, each response comes whole in one `response_done`. */
class ScriptedModel {
  calls = 0;
  async getResponse() {
    this.calls += 1;
    const usage = new Usage({ requests: 1, inputTokens: 100, outputTokens: 10, totalTokens: 110 });
    const message = (id, text) => ({
      type: "message",
      id,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text }],
    });
    if (this.calls === 1) {
      const output = [
        message("msg_0", "Let me look at the app."),
        ...CALLS.map(([callId, name, args], i) => ({
          type: "function_call",
          id: `fc_${i}`,
          callId,
          name,
          arguments: JSON.stringify(args),
          status: "completed",
        })),
      ];
      return { usage, output, responseId: "r1" };
    }
    return { usage, output: [message("msg_1", ANSWER)], responseId: "r2" };
  }
  async *getStreamedResponse() {
    const { usage, output, responseId } = await this.getResponse();
    yield {
      type: "response_done",
      response: {
        id: responseId,
        usage: { requests: 1, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: 110 },
        output,
      },
    };
  }
}

const tools = () => [
  tool({
    name: "read",
    description: "Reads a file.",
    parameters: z.object({ file_path: z.string() }),
    execute: async () => READ_RESULT,
  }),
  tool({
    name: "bash",
    description: "Runs a command.",
    parameters: z.object({ command: z.string(), description: z.string() }),
    execute: async () => BASH_RESULT,
  }),
  tool({
    name: "grep",
    description: "Searches files.",
    parameters: z.object({ pattern: z.string() }),
    execute: async (_input, _context, details) => {
      attachMeta(details, GREP_META);
      return GREP_RESULT;
    },
  }),
  tool({
    name: "web_fetch",
    description: "Fetches a page.",
    parameters: z.object({ url: z.string() }),
    execute: async () => {
      throw new Error("no network here");
    },
  }),
  tool({
    name: "job_kill",
    description: "Kills a job.",
    parameters: z.object({ job_id: z.string() }),
    execute: async ({ job_id }) => {
      throw new RangeError(`no such job: ${job_id}`);
    },
    errorFunction: toolFailure,
  }),
];

for (const watch of [false, true]) {
  test(`an OpenAI Agents run publishes its calls as toolview presents them (${watch ? "streamed, watched" : "hooks only"})`, async () => {
    const session = `openai-${watch}`;
    const agent = new Agent({ name: "coder", instructions: "Code.", model: new ScriptedModel(), tools: tools() });
    const client = connect(server.address);
    const hooks = new ToolviewRunHooks(client.session(session));
    const runner = new Runner({ tracingDisabled: true });
    const detach = hooks.attach(runner);
    await hooks.prompt("Where does the port come from?");
    let finalOutput;
    if (watch) {
      const stream = await runner.run(agent, "Where does the port come from?", { stream: true });
      for await (const _event of hooks.watch(stream)) {
        // The UI would draw the run here.
      }
      await stream.completed;
      finalOutput = stream.finalOutput;
    } else {
      finalOutput = (await runner.run(agent, "Where does the port come from?")).finalOutput;
    }
    detach();
    await hooks.settled();
    await client.flush();
    assert.equal(finalOutput, ANSWER);

    // The turn, the prompt (2), the calls (2 each), the messages (2 each), the turn's end.
    const said = watch ? ["Let me look at the app.", ANSWER] : [ANSWER];
    const events = 1 + 2 + 2 * CALLS.length + 2 * said.length + 1;
    const cards = new Map();
    const messages = [];
    let usage;
    let seen = 0;
    const everyCard = { terminal: true, diff: true, read: true, search: true, web: true };
    for await (const item of await client.subscribe(session, { capabilities: everyCard })) {
      assert.ok(!isReset(item));
      const update = item.body.value.update;
      if (update.case === "card") cards.set(item.callId, update.value);
      if (update.case === "message" && update.value.status === 2 && update.value.role === 2)
        messages.push(update.value.text);
      if (update.case === "turn" && update.value.finished) usage = update.value.usage;
      if (++seen === events) break;
    }
    assert.deepEqual(
      [...cards.keys()],
      CALLS.map(([callId]) => callId),
    );
    const results = { read: [READ_RESULT], bash: [BASH_RESULT], grep: [GREP_RESULT, GREP_META] };
    for (const [callId, name, args] of CALLS) {
      if (!results[name]) continue;
      const [text, meta] = results[name];
      const card = cards.get(callId);
      const presented = await client.present(name, args, text, { meta });
      assert.equal(card.toolName, name);
      assert.deepEqual(card.call, presented.call, name);
      assert.deepEqual(card.result, presented.result, name);
    }
    assert.equal(cards.get("call_bash_1").call.card.case, "terminal");
    assert.equal(cards.get("call_grep_1").result.card.case, "search");
    // A tool that threw is a failed card: the SDK's message, or the error with toolFailure.
    const fetch = cards.get("call_fetch_1");
    const kill = cards.get("call_kill_1");
    assert.deepEqual([fetch.status, kill.status], [3, 3]);
    assert.equal(fetch.result.card.value.content[0].block.value.text, DEFAULT_TOOL_ERROR);
    assert.equal(kill.result.card.value.content[0].block.value.text, "RangeError: no such job: bash-9");
    // The model's messages between the calls (when watched) and its answer, once.
    assert.deepEqual(messages, said);
    assert.equal(usage.inputTokens, 200n);
    const info = await client.getSession(session);
    assert.equal(info.title, "Where does the port come from?");
    assert.equal(info.headOffset, BigInt(events));
    await client.close();
  });
}

/** A model that asks for one guarded command, then answers; no network. */
class ApprovalModel {
  calls = 0;
  async getResponse() {
    this.calls += 1;
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 2, totalTokens: 12 });
    if (this.calls === 1) {
      const call = {
        type: "function_call",
        id: "fc_9",
        callId: "call_bash_9",
        name: "bash",
        arguments: JSON.stringify({ command: "rm -rf build", description: "Clean" }),
        status: "completed",
      };
      return { usage, output: [call], responseId: "r1" };
    }
    const text = { type: "output_text", text: "Done." };
    return {
      usage,
      output: [{ type: "message", id: "m9", role: "assistant", status: "completed", content: [text] }],
      responseId: "r2",
    };
  }
  // biome-ignore lint/correctness/useYield: the SDK's Model interface wants a generator; unused here
  async *getStreamedResponse() {
    throw new Error("the test runs without streaming");
  }
}

for (const answer of ["allow", "reject"]) {
  test(`an approval is asked through toolview (${answer})`, async () => {
    const session = `approve-${answer}`;
    const bash = tool({
      name: "bash",
      description: "Runs a command, once a person allowed it.",
      parameters: z.object({ command: z.string(), description: z.string() }),
      needsApproval: true,
      execute: async () => BASH_RESULT,
    });
    const agent = new Agent({ name: "coder", instructions: "Code.", model: new ApprovalModel(), tools: [bash] });
    const client = connect(server.address);
    const ui = connect(server.address);
    const hooks = new ToolviewRunHooks(client.session(session));
    const runner = new Runner({ tracingDisabled: true });
    const detach = hooks.attach(runner);
    const answered = (async () => {
      for await (const item of await ui.subscribe(session)) {
        const update = item.body.value.update;
        if (update.case !== "permission") continue;
        assert.equal(update.value.request.callId, "call_bash_9");
        return ui.respondPermission(session, item.requestId, answer, { via: "test" });
      }
    })();
    await hooks.prompt("Clean the build.");
    const first = await runner.run(agent, "Clean the build.");
    const state = await hooks.decideInterruptions(first, { timeoutMs: 30_000 });
    assert.ok(state);
    const result = await runner.run(agent, state);
    detach();
    await hooks.settled();
    await client.flush();
    assert.equal((await answered).won, true);
    assert.equal(result.finalOutput, "Done.");
    let card;
    for await (const item of await ui.subscribe(session, { capabilities: { terminal: true } })) {
      const update = item.body.value.update;
      if (update.case === "card" && item.callId === "call_bash_9") card = update.value;
      if (update.case === "turn" && update.value.finished) break;
    }
    if (answer === "allow") {
      assert.equal(card.status, 2);
      assert.equal(card.result.card.value.output, BASH_RESULT);
    } else {
      assert.equal(card.status, 3);
      assert.match(card.result.card.value.content[0].block.value.text, /Rejected by someone via test/);
    }
    await client.close();
    await ui.close();
  });
}

/** A model that gives its responses in order (each: function calls, or its answer's text). */
class Script {
  constructor(name, ...responses) {
    this.name = name;
    this.responses = responses;
  }
  async getResponse() {
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 1, totalTokens: 11 });
    const step = this.responses.shift();
    const output =
      typeof step === "string"
        ? [
            {
              type: "message",
              id: `msg_${this.name}_${this.responses.length}`,
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: step }],
            },
          ]
        : step.map(([callId, name, args]) => ({
            type: "function_call",
            id: `fc_${callId}`,
            callId,
            name,
            arguments: JSON.stringify(args),
            status: "completed",
          }));
    return { usage, output, responseId: `r_${this.name}_${this.responses.length}` };
  }
  // biome-ignore lint/correctness/useYield: never streamed here
  async *getStreamedResponse() {
    throw new Error("not streamed");
  }
}

test("an agent used as a tool publishes its calls under that tool's call", async () => {
  const grep = tool({
    name: "grep",
    description: "Searches the tests.",
    parameters: z.object({ pattern: z.string() }),
    execute: async () => "tests/net.rs:12: // flaky",
  });
  const researcher = new Agent({
    name: "researcher",
    instructions: "Find things.",
    model: new Script("researcher", [["call_in_1", "grep", { pattern: "flaky" }]], "net::reconnect is flaky."),
    tools: [grep],
  });
  const lead = new Agent({
    name: "lead",
    instructions: "Lead.",
    model: new Script("lead", [["call_agent_1", "research", { input: "Find the flaky test." }]], "Fixed."),
    tools: [researcher.asTool({ toolName: "research", toolDescription: "Researches." })],
  });
  const client = connect(server.address);
  const hooks = new ToolviewRunHooks(client.session("openai-nested"));
  const runner = new Runner({ tracingDisabled: true });
  const detach = hooks.attach(runner);
  const unnest = hooks.nest(researcher, "research");
  await hooks.prompt("Fix the flaky test.");
  const result = await runner.run(lead, "Fix the flaky test.");
  detach();
  unnest();
  await hooks.settled();
  await client.flush();
  assert.equal(result.finalOutput, "Fixed.");
  // The turn, the prompt (2), the agent tool's call and its child (2 each), the researcher's
  // answer and the lead's (2 each), the turn's end.
  const events = 1 + 2 + 2 * 2 + 2 * 2 + 1;
  const cards = new Map();
  const answers = new Map();
  let seen = 0;
  for await (const item of await client.subscribe("openai-nested")) {
    const update = item.body.value.update;
    if (update.case === "card") cards.set(item.callId, update.value);
    if (update.case === "message" && update.value.role === 2) answers.set(update.value.text, update.value.parentCallId);
    if (++seen === events) break;
  }
  assert.deepEqual([...cards.keys()], ["call_agent_1", "call_in_1"]);
  assert.equal(cards.get("call_in_1").parentCallId, "call_agent_1");
  assert.equal(cards.get("call_agent_1").children.done, 1);
  assert.equal(answers.get("net::reconnect is flaky."), "call_agent_1");
  assert.equal(answers.get("Fixed."), "");
  await client.close();
});
