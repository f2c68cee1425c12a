// The Claude Agent SDK adapter, driven by the SDK itself offline: `query()` runs its own hook
// dispatch against a scripted Claude Code, a process stand-in (`spawnClaudeCodeProcess`) that
// speaks the SDK's control protocol on stdin/stdout: it answers initialize, and on the prompt
// sends the hook callbacks a real run sends, waiting for each answer, then the result. The
// cards are the ones toolview's presenters give for those tools and results.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { after, before, test } from "node:test";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { isReset } from "@toolview/client";
import { resultOf, ToolviewHooks } from "@toolview/client/claude-agent-sdk";
import { connect } from "@toolview/client/node";
import { Server } from "./server.mjs";

let server;
before(async () => (server = await new Server().start()));
after(() => server.stop());

const READ_RESPONSE = {
  type: "text",
  file: {
    filePath: "/work/app.ts",
    content: "export const port = 8080\n// TODO\n",
    numLines: 2,
    startLine: 1,
    totalLines: 2,
  },
};
const EDIT_RESPONSE = {
  filePath: "/work/app.ts",
  oldString: "8080",
  newString: "Number(process.env.PORT)",
  structuredPatch: [
    {
      oldStart: 1,
      oldLines: 1,
      newStart: 1,
      newLines: 1,
      lines: ["-export const port = 8080", "+export const port = Number(process.env.PORT)"],
    },
  ],
};
// [hook event, tool, tool_use_id, input, response or error]
const CALLS = [
  ["PostToolUse", "Read", "toolu_01", { file_path: "/work/app.ts" }, READ_RESPONSE],
  [
    "PostToolUse",
    "Edit",
    "toolu_02",
    { file_path: "/work/app.ts", old_string: "8080", new_string: "Number(process.env.PORT)" },
    EDIT_RESPONSE,
  ],
  [
    "PostToolUse",
    "Bash",
    "toolu_03",
    { command: "npm test", description: "Run the tests" },
    { stdout: "> vitest run\nTests 3 passed", stderr: "", interrupted: false, isImage: false },
  ],
  ["PostToolUseFailure", "Bash", "toolu_04", { command: "npm run lint" }, "Exit code 1\nlint: 2 problems"],
];

/** A Claude Code process stand-in on the SDK's SpawnedProcess interface. */
function scriptedClaudeCode() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const events = new EventEmitter();
  const proc = {
    stdin,
    stdout,
    killed: false,
    exitCode: null,
    kill() {
      proc.killed = true;
      stdout.end();
      events.emit("exit", 0, null);
      return true;
    },
    on: (event, listener) => events.on(event, listener),
    once: (event, listener) => events.once(event, listener),
    off: (event, listener) => events.off(event, listener),
  };
  const send = (message) => stdout.write(`${JSON.stringify(message)}\n`);
  const hooks = {};
  const answers = new Map();
  let next = 1;
  async function hook(event, data, toolUseId) {
    for (const callbackId of hooks[event] ?? []) {
      const requestId = `req_${next++}`;
      const answered = new Promise((resolve) => answers.set(requestId, resolve));
      send({
        type: "control_request",
        request_id: requestId,
        request: {
          subtype: "hook_callback",
          callback_id: callbackId,
          tool_use_id: toolUseId,
          input: { session_id: "cc-1", transcript_path: "", cwd: "/work", hook_event_name: event, ...data },
        },
      });
      const answer = await answered;
      assert.equal(answer.subtype, "success", JSON.stringify(answer));
    }
  }
  async function turn(prompt) {
    await hook("UserPromptSubmit", { prompt });
    for (const [event, tool, toolUseId, args, outcome] of CALLS) {
      const common = { tool_name: tool, tool_input: args, tool_use_id: toolUseId };
      await hook("PreToolUse", common, toolUseId);
      await hook(
        event,
        { ...common, ...(event === "PostToolUse" ? { tool_response: outcome } : { error: outcome }) },
        toolUseId,
      );
    }
    await hook("Stop", { stop_hook_active: false, last_assistant_message: "The port is configurable." });
    send({
      type: "result",
      subtype: "success",
      duration_ms: 5,
      duration_api_ms: 4,
      is_error: false,
      num_turns: 1,
      session_id: "cc-1",
      result: "done",
      total_cost_usd: 0,
      usage: {},
      permission_denials: [],
    });
  }
  createInterface({ input: stdin }).on("line", (line) => {
    const message = JSON.parse(line);
    if (message.type === "control_request" && message.request.subtype === "initialize") {
      for (const [event, matchers] of Object.entries(message.request.hooks ?? {})) {
        hooks[event] = matchers.flatMap((m) => m.hookCallbackIds);
      }
      send({
        type: "control_response",
        response: { subtype: "success", request_id: message.request_id, response: {} },
      });
    } else if (message.type === "control_request") {
      send({
        type: "control_response",
        response: { subtype: "success", request_id: message.request_id, response: {} },
      });
    } else if (message.type === "control_response") {
      answers.get(message.response.request_id)?.(message.response);
    } else if (message.type === "user") {
      const content = message.message.content;
      turn(typeof content === "string" ? content : content.map((b) => b.text).join(""));
    }
  });
  stdin.on("end", () => proc.kill());
  return proc;
}

test("Claude Agent SDK hooks publish the calls as toolview presents them", async () => {
  const client = connect(server.address);
  const hooks = new ToolviewHooks(client.session("claude"));
  const messages = [];
  for await (const message of query({
    prompt: "Make the port configurable.",
    options: {
      hooks: hooks.hooks(),
      spawnClaudeCodeProcess: scriptedClaudeCode,
      pathToClaudeCodeExecutable: "/nonexistent/claude",
    },
  })) {
    messages.push(message);
  }
  assert.equal(messages.at(-1)?.type, "result");
  await client.flush();

  // A turn: its start, the prompt (2), 4 calls (2 each), the answer (2), its end.
  const events = 1 + 2 + 8 + 2 + 1;
  const cards = new Map();
  const everyCard = { terminal: true, diff: true, read: true, search: true, web: true };
  let seen = 0;
  for await (const item of await client.subscribe("claude", { capabilities: everyCard })) {
    assert.ok(!isReset(item));
    if (item.body.case === "view" && item.body.value.update.case === "card")
      cards.set(item.callId, item.body.value.update.value);
    if (++seen === events) break;
  }
  assert.deepEqual([...cards.keys()], ["toolu_01", "toolu_02", "toolu_03", "toolu_04"]);
  for (const [event, tool, toolUseId, args, outcome] of CALLS) {
    const presented =
      event === "PostToolUse"
        ? await client.present(tool, args, resultOf(tool, outcome).text, { meta: resultOf(tool, outcome).meta })
        : await client.present(tool, args, outcome, { isError: true, meta: { exit_code: 1 } });
    const card = cards.get(toolUseId);
    assert.equal(card.toolName, tool);
    assert.deepEqual(card.call, presented.call, tool);
    assert.deepEqual(card.result, presented.result, tool);
  }
  assert.equal(cards.get("toolu_01").result.card.case, "read");
  assert.equal(cards.get("toolu_02").result.card.case, "diff");
  assert.equal(cards.get("toolu_03").result.card.case, "terminal");
  assert.equal((await client.getSession("claude")).title, "Make the port configurable.");
  await client.close();
});
