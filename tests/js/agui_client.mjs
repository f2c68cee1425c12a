// The official AG-UI client (@ag-ui/client 1.0) against toolview, for tests/agui.rs. Every
// event goes through the client's own pipeline (runAgent: verifyEvents, then
// defaultApplyEvents), so a stream the client rejects fails here.
//
//   node agui_client.mjs http URL THREAD OPTIONS_JSON [RESULTS]
//       An unmodified HttpAgent runs against URL with forwardedProps.toolview = OPTIONS_JSON
//       (an array of them: one run after another on the same agent, as a UI resuming; an
//       `"after": "last"` resumes after the previous run's RUN_FINISHED cursor; `"pause": true`
//       waits for a line on stdin before the run). With
//       RESULTS, the last run is aborted once that many tool results arrived (a live run never
//       ends by itself); "ready" goes to stderr once the event after RUN_STARTED arrived.
//   node agui_client.mjs sweep URL < CASES
//       CASES is a JSON array of {thread, toolview}: one run each, on a fresh HttpAgent, through
//       runAgent. Prints per case {error, pairs, messages, cursor, content}: the client's error
//       (null when verifyEvents accepted the stream), whether every RUN_FINISHED names the run
//       its RUN_STARTED opened, per message id its START/END counts, the cursor runAgent
//       returned, and each text message's content.
//   node agui_client.mjs interrupt URL THREAD OPTION
//       Native interrupts: a run pauses at a pending permission request (RUN_FINISHED with
//       outcome interrupt); a second run answers it with resume (payload {optionId: OPTION})
//       from the first run's cursor (OPTION `cancelled`: the resume abstains; with
//       TOOLVIEW_AGUI_WAIT=1 it waits for a line on stdin first). Prints {paused, pending,
//       resumed, after, events, runs}.
//   node agui_client.mjs offline THREAD < EVENTS
//       The same pipeline over AG-UI events as JSON lines (`toolview render --target ag-ui`).
//
// Prints {messages, events, runs} as JSON: the folded messages, the event types in order, and
// per run its RUN_STARTED/RUN_FINISHED ids. Exits 1 with the client's error on a rejection.
import { AbstractAgent, HttpAgent } from "@ag-ui/client";
import { from } from "rxjs";
import { readFileSync } from "node:fs";
import readline from "node:readline";

const [mode, ...args] = process.argv.slice(2);
const events = [];
const runs = [];

const recorder = {
  onEvent({ event }) {
    events.push(event.type);
    if (event.type === "RUN_STARTED") runs.push({ started: event.runId });
    if (event.type === "RUN_FINISHED") runs[runs.length - 1].finished = event.result ?? null;
    // The first event after RUN_STARTED: a live run's catch-up has arrived.
    if (events.length === 2) process.stderr.write("ready\n");
  },
};

class ReplayAgent extends AbstractAgent {
  constructor(threadId, lines) {
    super({ threadId });
    this.lines = lines;
  }
  run() {
    return from(this.lines.map((l) => JSON.parse(l)));
  }
}

function report(agent) {
  process.stdout.write(JSON.stringify({ messages: agent.messages, events, runs }) + "\n");
}

async function sweep(url) {
  const cases = JSON.parse(readFileSync(0, "utf8"));
  const out = [];
  for (const { thread, toolview } of cases) {
    const agent = new HttpAgent({ url, threadId: thread });
    const open = [];
    let pairs = true;
    const messages = {};
    const count = (id, key) => {
      messages[id] ??= { starts: 0, ends: 0 };
      messages[id][key] += 1;
    };
    const watcher = {
      onEvent({ event }) {
        if (event.type === "RUN_STARTED") open.push(event.runId);
        if (event.type === "RUN_FINISHED" && open.pop() !== event.runId) pairs = false;
        if (event.type.endsWith("MESSAGE_START")) count(event.messageId, "starts");
        if (event.type.endsWith("MESSAGE_END")) count(event.messageId, "ends");
      },
    };
    let error = null;
    let cursor = null;
    try {
      const { result } = await agent.runAgent({ forwardedProps: { toolview } }, watcher);
      cursor = result?.cursor ?? null;
    } catch (e) {
      error = String(e?.message ?? e);
    }
    const content = {};
    for (const m of agent.messages) {
      if (typeof m.content === "string") content[m.id] = m.content;
    }
    out.push({ error, pairs: pairs && open.length === 0, messages, cursor, content });
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

/** Native interrupts: a run that pauses at a pending permission request, then a run that
 *  answers it with `resume` (payload {optionId: OPTION}) and goes on from the cursor. */
async function interrupt(url, thread, option) {
  const agent = new HttpAgent({ url, threadId: thread });
  let finished = null;
  const watch = {
    ...recorder,
    onEvent(params) {
      recorder.onEvent(params);
      if (params.event.type === "RUN_FINISHED") finished = params.event;
    },
  };
  await agent.runAgent({ forwardedProps: { toolview: { interrupts: true } } }, watch);
  const paused = finished;
  const pending = structuredClone(agent.pendingInterrupts);
  process.stderr.write("paused\n");
  if (process.env.TOOLVIEW_AGUI_WAIT === "1") {
    // Until told to go on (someone else answers meanwhile).
    const lines = readline.createInterface({ input: process.stdin });
    for await (const _ of lines) break;
    lines.close();
  }
  // OPTION `cancelled`: the resume abstains (the UI saw the prompt and let others answer).
  const resume = pending.map((i) =>
    option === "cancelled"
      ? { interruptId: i.id, status: "cancelled" }
      : { interruptId: i.id, status: "resolved", payload: { optionId: option } },
  );
  const after = paused?.result?.cursor;
  await agent.runAgent(
    { forwardedProps: { toolview: { interrupts: true, follow: false, after } }, resume },
    watch,
  );
  process.stdout.write(
    JSON.stringify({ paused, pending, resumed: finished, after: agent.pendingInterrupts, events, runs, messages: agent.messages }) + "\n",
  );
}

async function main() {
  if (mode === "interrupt") {
    await interrupt(...args);
    return;
  }
  if (mode === "sweep") {
    await sweep(args[0]);
    return;
  }
  if (mode === "offline") {
    const [thread] = args;
    const lines = readFileSync(0, "utf8").split("\n").filter((l) => l.trim() !== "");
    const agent = new ReplayAgent(thread, lines);
    await agent.runAgent({}, recorder);
    report(agent);
    return;
  }
  if (mode !== "http") throw new Error(`unknown mode ${mode}`);
  const [url, thread, optionsJson, results] = args;
  const headers = process.env.TOOLVIEW_TOKEN
    ? { Authorization: `Bearer ${process.env.TOOLVIEW_TOKEN}` }
    : {};
  const agent = new HttpAgent({ url, threadId: thread, headers });
  const parsed = JSON.parse(optionsJson);
  const all = Array.isArray(parsed) ? parsed : [parsed];
  for (let [i, toolview] of all.entries()) {
    const last = i === all.length - 1;
    // "pause": true waits for a line on stdin before the run (the test publishes meanwhile).
    if (toolview.pause) {
      const { pause, ...rest } = toolview;
      toolview = rest;
      process.stderr.write("paused\n");
      await new Promise((resolve) => process.stdin.once("data", resolve));
      process.stdin.pause();
    }
    // "after": "last" resumes after the previous run's RUN_FINISHED cursor.
    if (toolview.after === "last") {
      toolview = { ...toolview, after: runs[runs.length - 1].finished.cursor };
    }
    if (last && results !== undefined) {
      let seen = 0;
      const want = Number(results);
      const stopper = {
        ...recorder,
        onToolCallResultEvent() {
          seen += 1;
          // After this result is applied.
          if (seen >= want) setTimeout(() => agent.abortRun(), 50);
        },
      };
      try {
        await agent.runAgent({ forwardedProps: { toolview } }, stopper);
      } catch (e) {
        if (e?.name !== "AbortError" && !String(e).includes("abort")) throw e;
      }
    } else {
      await agent.runAgent({ forwardedProps: { toolview } }, recorder);
    }
  }
  report(agent);
}

main().catch((e) => {
  process.stderr.write(`agui_client: ${e?.stack ?? e}\n`);
  process.exit(1);
});
