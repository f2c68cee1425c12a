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
  ["PostToolUseFailure", "Bash", "toolu_04", { command: "npm run lint" }, "Exit code 3\nlint: 2 problems"],
  [
    "PostToolUse",
    "Grep",
    "toolu_05",
    { pattern: "TODO", output_mode: "content", "-n": true },
    { mode: "content", numFiles: 0, filenames: [], content: "app.ts:2:// TODO", numLines: 1 },
  ],
  [
    "PostToolUse",
    "Glob",
    "toolu_06",
    { pattern: "**/*.ts" },
    { filenames: ["/work/app.ts", "/work/app.test.ts"], durationMs: 3, numFiles: 2, truncated: false },
  ],
  ["PostToolUseFailure", "Read", "toolu_07", { file_path: "/work/gone.ts" }, "File does not exist."],
];
// What each call's card must show.
const SHOWN = {
  toolu_04: { case: "terminal", output: "lint: 2 problems", exit: 3 },
  toolu_05: { case: "generic", text: "app.ts:2:// TODO" },
  toolu_06: { case: "generic", text: "/work/app.ts\n/work/app.test.ts" },
};
const everyCard = { terminal: true, diff: true, read: true, search: true, web: true };
const USAGE = { input_tokens: 900, cache_read_input_tokens: 300, output_tokens: 120 };

/** What the scripted Claude Code does with a prompt: the calls of CALLS, text, the result. */
async function turn(prompt, { hook, say, send }) {
  await hook("UserPromptSubmit", { prompt });
  say("I'll look at the app first.", 1);
  for (const [event, tool, toolUseId, args, outcome] of CALLS) {
    const common = { tool_name: tool, tool_input: args, tool_use_id: toolUseId };
    await hook("PreToolUse", common, toolUseId);
    await hook(
      event,
      { ...common, ...(event === "PostToolUse" ? { tool_response: outcome } : { error: outcome }) },
      toolUseId,
    );
  }
  say("The port is configurable.", 2);
  await hook("Stop", { stop_hook_active: false, last_assistant_message: "The port is configurable." });
  sendResult(send);
}

/** The run's result, as Claude Code ends a query. */
function sendResult(send) {
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
    usage: USAGE,
    permission_denials: [],
  });
}

/** A Claude Code process stand-in on the SDK's SpawnedProcess interface.
 * `script(prompt, claude)`: what it does with a prompt (`claude` has `hook`, `say`,
 * `send` and `ask`, a `can_use_tool` request answered by the SDK). */
function scriptedClaudeCode(script = turn) {
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
  const say = (text, n) =>
    send({
      type: "assistant",
      message: {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [{ type: "text", text }],
      },
      parent_tool_use_id: null,
      session_id: "cc-1",
      uuid: `uuid-${n}`,
    });
  async function ask(toolUseId, tool, input, suggestions) {
    const requestId = `req_${next++}`;
    const answered = new Promise((resolve) => answers.set(requestId, resolve));
    send({
      type: "control_request",
      request_id: requestId,
      request: {
        subtype: "can_use_tool",
        tool_name: tool,
        input,
        permission_suggestions: suggestions,
        tool_use_id: toolUseId,
        title: `Allow ${tool} to run ${input.command}?`,
      },
    });
    const answer = await answered;
    assert.equal(answer.subtype, "success", JSON.stringify(answer));
    return answer.response;
  }
  const claude = { hook, say, send, ask };
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
      script(typeof content === "string" ? content : content.map((b) => b.text).join(""), claude);
    }
  });
  stdin.on("end", () => proc.kill());
  return proc;
}

for (const watch of [true, false]) {
  test(`Claude Agent SDK hooks publish the calls as toolview presents them (${watch ? "watching the messages" : "hooks only"})`, async () => {
    const session = `claude-${watch}`;
    const client = connect(server.address);
    const hooks = new ToolviewHooks(client.session(session));
    const run = query({
      prompt: "Make the port configurable.",
      options: {
        hooks: hooks.hooks(),
        spawnClaudeCodeProcess: () => scriptedClaudeCode(),
        pathToClaudeCodeExecutable: "/nonexistent/claude",
      },
    });
    const messages = [];
    for await (const message of watch ? hooks.watch(run) : run) messages.push(message);
    assert.equal(messages.at(-1)?.type, "result");
    await client.flush();
    // A turn: its start, the prompt (start, end), the calls (start, end), the answers, its end.
    const events = 1 + 2 + 2 * CALLS.length + 2 * (watch ? 2 : 1) + 1;
    const cards = new Map();
    const said = [];
    let seen = 0;
    for await (const item of await client.subscribe(session, { capabilities: everyCard })) {
      assert.ok(!isReset(item));
      const update = item.body.value.update;
      if (update.case === "card") cards.set(item.callId, update.value);
      if (update.case === "message" && update.value.status === 2) said.push(update.value.text);
      if (update.case === "turn" && update.value.finished)
        said.push([update.value.usage?.inputTokens ?? 0n, update.value.usage?.outputTokens ?? 0n]);
      if (++seen === events) break;
    }
    assert.deepEqual(
      [...cards.keys()],
      CALLS.map((c) => c[2]),
    );
    for (const [event, tool, toolUseId, args, outcome] of CALLS) {
      const card = cards.get(toolUseId);
      const shown = SHOWN[toolUseId];
      if (shown?.case === "terminal") {
        assert.equal(card.result.card.value.output, shown.output);
        assert.deepEqual(card.result.card.value.exit, { case: "exitCode", value: shown.exit });
      } else if (shown) {
        assert.equal(card.result.card.value.content[0].block.value.text, shown.text, tool);
      }
      if (event === "PostToolUse") {
        const { text, meta } = resultOf(tool, outcome);
        const presented = await client.present(tool, args, text, { meta });
        assert.equal(card.toolName, tool);
        assert.deepEqual(card.call, presented.call, tool);
        assert.deepEqual(card.result, presented.result, tool);
      } else if (tool !== "Bash") {
        const presented = await client.present(tool, args, outcome, { isError: true });
        assert.deepEqual(card.result, presented.result, tool);
      }
    }
    assert.equal(cards.get("toolu_01").result.card.case, "read");
    assert.equal(cards.get("toolu_02").result.card.case, "diff");
    assert.equal(cards.get("toolu_03").result.card.case, "terminal");
    assert.equal(cards.get("toolu_04").result.card.case, "terminal");
    const user = "Make the port configurable.";
    assert.deepEqual(
      said,
      watch
        ? [user, "I'll look at the app first.", "The port is configurable.", [1200n, 120n]]
        : [user, "The port is configurable.", [0n, 0n]],
    );
    assert.equal((await client.getSession(session)).title, user);
    await client.close();
  });
}

for (const answer of ["reject", "always"]) {
  test(`canUseTool asks through toolview (${answer})`, async () => {
    const session = `ask-${answer}`;
    const input = { command: "rm -rf build", description: "Clean" };
    const rule = { toolName: "Bash", ruleContent: "rm -rf build" };
    let permission;
    const script = async (prompt, { hook, send, ask }) => {
      await hook("UserPromptSubmit", { prompt });
      const common = { tool_name: "Bash", tool_input: input, tool_use_id: "toolu_09" };
      await hook("PreToolUse", common, "toolu_09");
      permission = await ask("toolu_09", "Bash", input, [
        { type: "addRules", rules: [rule], behavior: "allow", destination: "session" },
      ]);
      if (permission.behavior === "allow") {
        const response = { stdout: "", stderr: "", interrupted: false, isImage: false };
        await hook("PostToolUse", { ...common, tool_response: response }, "toolu_09");
      } else {
        await hook("PostToolUseFailure", { ...common, error: permission.message }, "toolu_09");
      }
      await hook("Stop", { stop_hook_active: false, last_assistant_message: "Done." });
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
    };
    const client = connect(server.address);
    const ui = connect(server.address);
    const hooks = new ToolviewHooks(client.session(session));
    // A UI answers as soon as the prompt shows, on the call's card.
    const answered = (async () => {
      for await (const item of await ui.subscribe(session)) {
        const update = item.body.value.update;
        if (update.case !== "permission") continue;
        assert.equal(update.value.request.callId, "toolu_09");
        return ui.respondPermission(session, item.requestId, answer, { reason: "checked", via: "test" });
      }
    })();
    for await (const _ of query({
      prompt: "Clean the build.",
      options: {
        hooks: hooks.hooks(),
        canUseTool: hooks.canUseTool,
        spawnClaudeCodeProcess: () => scriptedClaudeCode(script),
        pathToClaudeCodeExecutable: "/nonexistent/claude",
      },
    })) {
      // The run's messages.
    }
    assert.equal((await answered).won, true);
    if (answer === "reject") {
      assert.deepEqual(
        { behavior: permission.behavior, message: permission.message },
        { behavior: "deny", message: "Rejected by someone via test: checked" },
      );
    } else {
      assert.equal(permission.behavior, "allow");
      assert.deepEqual(permission.updatedInput, input);
      assert.deepEqual(permission.updatedPermissions[0].rules, [rule]);
    }
    await client.close();
    await ui.close();
  });
}

/** A run whose Task call runs a subagent: SubagentStart, the subagent's message announcing its
 * first call (parent_tool_use_id: the Task call), that call's hooks with the agent_id, a second
 * call only the hooks name, then the Task's result. */
async function subagentTurn(prompt, { hook, send }) {
  await hook("UserPromptSubmit", { prompt });
  const task = {
    tool_name: "Task",
    tool_input: { description: "Find the flaky test", prompt: "Look.", subagent_type: "explore" },
    tool_use_id: "toolu_task",
  };
  await hook("PreToolUse", task, "toolu_task");
  await hook("SubagentStart", { agent_id: "agent-1", agent_type: "explore" });
  send({
    type: "assistant",
    message: {
      id: "msg_sub",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [
        { type: "text", text: "Searching the tests." },
        { type: "tool_use", id: "toolu_s1", name: "Grep", input: { pattern: "flaky" } },
      ],
    },
    parent_tool_use_id: "toolu_task",
    session_id: "cc-1",
    uuid: "uuid-sub",
  });
  const inside = { agent_id: "agent-1", agent_type: "explore" };
  const grep = { tool_name: "Grep", tool_input: { pattern: "flaky" }, tool_use_id: "toolu_s1", ...inside };
  await hook("PreToolUse", grep, "toolu_s1");
  await hook("PostToolUse", { ...grep, tool_response: { filenames: ["tests/net.rs"] } }, "toolu_s1");
  const bash = { tool_name: "Bash", tool_input: { command: "cargo test net" }, tool_use_id: "toolu_s2", ...inside };
  await hook("PreToolUse", bash, "toolu_s2");
  await hook("PostToolUseFailure", { ...bash, error: "Exit code 101\nFAILED" }, "toolu_s2");
  await hook("SubagentStop", { stop_hook_active: false, agent_transcript_path: "", ...inside });
  await hook("PostToolUse", { ...task, tool_response: "net::reconnect is flaky" }, "toolu_task");
  sendResult(send);
}

test("a Claude subagent's calls nest under their Task call", async () => {
  const client = connect(server.address);
  const hooks = new ToolviewHooks(client.session("claude-sub"));
  const run = query({
    prompt: "Find the flaky test.",
    options: {
      hooks: hooks.hooks(),
      spawnClaudeCodeProcess: () => scriptedClaudeCode(subagentTurn),
      pathToClaudeCodeExecutable: "/nonexistent/claude",
    },
  });
  for await (const _ of hooks.watch(run)) {
  }
  await client.flush();
  // A turn: its start, the prompt, the Task call and its two children, the subagent's words, its end.
  const events = 1 + 2 + 2 * 3 + 2 + 1;
  const cards = new Map();
  const words = [];
  let seen = 0;
  for await (const item of await client.subscribe("claude-sub")) {
    const update = item.body.value.update;
    if (update.case === "card") cards.set(item.callId, update.value);
    if (update.case === "message" && update.value.role === 2)
      words.push([update.value.text, update.value.parentCallId]);
    if (++seen === events) break;
  }
  assert.deepEqual([...cards.keys()], ["toolu_task", "toolu_s1", "toolu_s2"]);
  assert.deepEqual(
    ["toolu_task", "toolu_s1", "toolu_s2"].map((c) => cards.get(c).parentCallId),
    ["", "toolu_task", "toolu_task"],
  );
  assert.equal(cards.get("toolu_task").children.done, 2);
  assert.deepEqual(words.at(-1), ["Searching the tests.", "toolu_task"]);
  await client.close();
});
