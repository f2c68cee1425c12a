// A Node.js agent harness publishing a realistic session to toolview, with @toolview/client
// (npm install ./clients/typescript).
//
//   node harness.js --server 127.0.0.1:50051 --session node-demo [--token JWT] [--tls-ca ca.pem]
//
// One turn: the user's prompt, reasoning and first words (in deltas), five calls (read, edit
// with before/after meta, a failing test run streaming output, grep, fetch), the answer, and the
// turn's end with its token usage.
import { readFileSync } from "node:fs";
import { connect } from "@toolview/client/node";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const server = arg("server", "127.0.0.1:50051");
const sessionId = arg("session", "node-demo");
const ca = arg("tls-ca", process.env.TOOLVIEW_TLS_CA);
const client = connect(server, { token: arg("token", process.env.TOOLVIEW_TOKEN), ca: ca ? readFileSync(ca) : undefined });

const session = client.session(sessionId);
await session.start("/work/proj");
const turn = await session.startTurn("turn-1");
await session.message("user", "Make the port configurable and check the tests.", { messageId: "user-1" });
const thought = await session.startMessage("reasoning", "The port is hard-coded; ", { messageId: "think-1" });
await thought.append("read it from PORT.");
await thought.finish();
const say = await session.startMessage("assistant", "I'll read the config ", { messageId: "say-1" });
await say.append("and run the tests.");
await say.finish();

const lines = ["export const port = 8080", "// TODO: read from env"];
const body = lines.map((l, i) => `${i + 1}: ${l}`).join("\n");
const read = await session.startCall("read", { file_path: "/work/proj/src/app.ts" }, { callId: "read-1" });
await read.finish(`<path>/work/proj/src/app.ts</path>\n<type>file</type>\n<content>\n${body}\n</content>`, {
  meta: {
    path: "/work/proj/src/app.ts",
    offset: 1,
    totalLines: 2,
    lang: "ts",
    lines: lines.map((text, i) => ({ number: i + 1, text })),
  },
});

const before = `${lines.join("\n")}\n`;
const after = before.replace("8080", "Number(process.env.PORT)");
const edit = await session.startCall(
  "edit",
  { file_path: "src/app.ts", old_string: "8080", new_string: "Number(process.env.PORT)" },
  { callId: "edit-1" },
);
await edit.finish("The file was updated.", { meta: { before, after } });

const tests = await session.startCall("bash", { command: "npm test", description: "Run the tests" }, { callId: "bash-1" });
await tests.output("> vitest run\n");
await tests.output(" FAIL  src/app.test.ts\n");
await tests.finish("> vitest run\n FAIL  src/app.test.ts\nTests  1 failed\n[exit code: 2]");

const grep = await session.startCall("grep", { pattern: "TODO", path: "src" }, { callId: "grep-1" });
await grep.finish("Found 1 match", {
  meta: {
    shape: "matches",
    truncated: false,
    total: 1,
    files: [{ path: "src/app.ts", matches: [{ lineNumber: 2, line: "// TODO: read from env" }] }],
  },
});
const fetch = await session.startCall("web_fetch", { url: "https://vitest.dev/guide/" }, { callId: "fetch-1" });
await fetch.finish("# Getting Started", { meta: { url: "https://vitest.dev/guide/", statusCode: 200, truncated: false } });

await session.message("assistant", "Done: the port comes from PORT; one test still fails.", { messageId: "say-2" });
await turn.finish("end_turn", { inputTokens: 1200n, outputTokens: 340n, contextTokens: 5400n, contextWindow: 200000n });
// Closing flushes: every event is acknowledged.
await client.close();
// (A publish-only token may not read the session back: the client's count says it.)
console.log(`published ${client.publisher.acknowledged} events`);
