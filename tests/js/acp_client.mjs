// The official ACP client library (@agentclientprotocol/sdk) against `toolview acp` over stdio,
// for tests/acp_agent.rs: the client app validates every message against the ACP schema, and
// its session/update handler sees only notifications that passed.
//
//   node acp_client.mjs TOOLVIEW SERVER SESSION MODE TERMINAL WANT
//     MODE: load (session/load SESSION), new (session/new; the agent runs with --session),
//     new-live (the same with --live-only). TERMINAL: the client's
//     clientCapabilities._meta.terminal_output. WANT: notifications to wait for; "ready" goes
//     to stderr after the first one (TOOLVIEW_ACP_UNTIL=STATUS: until a notification with that
//     status instead). TOOLVIEW_ACP_REASONING=1 runs the agent with --reasoning.
//
//     MODE permission: session/load SESSION, then the editor's side of permission prompts
//     (TOOLVIEW_ACP_ANSWER: reject, or wait for the agent to withdraw the prompt); prints
//     {init, asked, withdrawn, decision} once a decision shows.
//
//     MODE sessions: session/list page by page (CWD filter in the env TOOLVIEW_ACP_CWD, page
//     cursors followed to the end), then session/resume SESSION and, once WANT notifications
//     came after "resumed" went to stderr (the test publishes meanwhile), session/close.
//
// Prints {init, loadedAfter, notifications, received, stopReason} as JSON (received: when each
// notification arrived, in ms) (sessions: {init, pages,
// listed, notifications}), then ends the agent.
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [bin, server, session, mode, terminal, want] = process.argv.slice(2);
const args = ["acp", "--server", server];
if (!["load", "sessions", "permission"].includes(mode)) args.push("--session", session);
if (mode === "new-live") args.push("--live-only");
if (process.env.TOOLVIEW_ACP_REASONING === "1") args.push("--reasoning");
const agentProcess = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });

const notifications = [];
// When each notification arrived (ms, monotonic): how often the agent sent input replacements.
const received = [];
// MODE permission: the editor's side of a permission prompt. TOOLVIEW_ACP_ANSWER=reject picks
// the reject option; =wait answers nothing and waits for the agent to withdraw the prompt.
const asked = [];
let withdrawn = false;
let settled;
const decided = new Promise((resolve) => (settled = resolve));
let enough;
const reached = new Promise((resolve) => (enough = resolve));
const app = acp
  .client({ name: "toolview-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    notifications.push(params);
    received.push(performance.now());
    if (notifications.length === 1 && mode !== "sessions") process.stderr.write("ready\n");
    // TOOLVIEW_ACP_UNTIL=completed: wait for a call's completion instead of a count.
    const until = process.env.TOOLVIEW_ACP_UNTIL;
    if (until ? params.update.status === until : notifications.length >= Number(want)) enough();
    const permission = params.update._meta?.toolview?.permission;
    if (permission && permission.state !== "pending") settled(permission);
  })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
    asked.push(params);
    process.stderr.write("asked\n");
    if (process.env.TOOLVIEW_ACP_ANSWER === "reject") {
      return { outcome: { outcome: "selected", optionId: "reject" } };
    }
    await new Promise((resolve) => signal.addEventListener("abort", resolve));
    withdrawn = true;
    return { outcome: { outcome: "cancelled" } };
  });

const stream = acp.ndJsonStream(
  Writable.toWeb(agentProcess.stdin),
  Readable.toWeb(agentProcess.stdout),
);

async function sessions(ctx, init) {
  const listed = [];
  let pages = 0;
  let cursor;
  do {
    const params = { cursor };
    if (process.env.TOOLVIEW_ACP_CWD) params.cwd = process.env.TOOLVIEW_ACP_CWD;
    const page = await ctx.request(acp.methods.agent.session.list, params);
    pages += 1;
    listed.push(...page.sessions);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  await ctx.request(acp.methods.agent.session.resume, { sessionId: session, cwd: "/", mcpServers: [] });
  process.stderr.write("resumed\n");
  if (Number(want) > 0) await reached;
  await ctx.request(acp.methods.agent.session.close, { sessionId: session });
  return { init, pages, listed, notifications };
}

const result = await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      _meta: { terminal_output: terminal === "true" },
    },
  });
  if (mode === "sessions") return sessions(ctx, init);
  if (mode === "permission") {
    await ctx.request(acp.methods.agent.session.load, { sessionId: session, cwd: "/", mcpServers: [] });
    const decision = await decided;
    // The withdrawal reaches the handler just after the update that says why.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { init, asked, withdrawn, decision };
  }
  let loadedAfter = null;
  if (mode === "load") {
    await ctx.request(acp.methods.agent.session.load, { sessionId: session, cwd: "/", mcpServers: [] });
    // session/load answers once the history is sent.
    loadedAfter = notifications.length;
  } else {
    const created = await ctx.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
    if (created.sessionId !== session) throw new Error(`session/new gave ${created.sessionId}`);
  }
  if (Number(want) > 0 || process.env.TOOLVIEW_ACP_UNTIL) await reached;
  const before = notifications.length;
  const prompted = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: session,
    prompt: [{ type: "text", text: "hello" }],
  });
  // The prompt's answer chunk is not part of the session's rendering.
  const answer = notifications.splice(before).filter((n) => n.update.sessionUpdate === "agent_message_chunk");
  return { init, loadedAfter, notifications, received, stopReason: prompted.stopReason, answer };
});
agentProcess.kill();
// Exit once stdout is written: a pipe takes a large report asynchronously.
process.stdout.write(JSON.stringify(result) + "\n", () => process.exit(0));
