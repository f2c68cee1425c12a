// The official AI SDK (`ai` 7) against toolview's UI message stream, for tests/interop/ai_sdk.rs.
// Every chunk goes through the package's own pipeline: parseJsonEventStream with its
// uiMessageChunkSchema (a chunk that does not parse is an error), then readUIMessageStream,
// which folds chunks into the assistant message and throws on an order it cannot apply (a tool
// output before its input: "No tool invocation found").
//
//   node ai_sdk_client.mjs post URL BODY_JSON [OUTPUTS]
//       POSTs BODY_JSON to URL (a useChat request) and reads the stream; with OUTPUTS, stops
//       once that many tool outputs arrived ("ready" goes to stderr after the first chunk).
//   node ai_sdk_client.mjs offline < CHUNKS
//       The same pipeline over chunks as JSON lines (`toolview render --target ai-sdk`).
//   node ai_sdk_client.mjs chat API SESSION
//       A Chat with DefaultChatTransport({api}): sendMessage (replay to the head), then
//       resumeStream (GET {api}/{id}/stream, a replay), then a resume of a chat with no session
//       (204: nothing to resume).
//
//   node ai_sdk_client.mjs approve-counting API SESSION
//       The same, approving, counting the chat's POSTs until the call has its result; prints
//       {posts, state, status, errors}.
//
//   node ai_sdk_client.mjs approve API SESSION APPROVED
//       A Chat reads the session (a call awaiting approval), then answers the approval with
//       addToolApprovalResponse({approved: APPROVED}); sendAutomaticallyWhen sends it.
//
// Prints {message, errors, types, inputStates, header} as JSON (chat: {sent, resumed, nothing, prompts}).
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
} from "ai";
import { readFileSync } from "node:fs";

const [mode, ...args] = process.argv.slice(2);

/** Reads an SSE body through the SDK; stops after `outputs` tool outputs when set. */
async function read(body, outputs, abort) {
  const errors = [];
  const types = [];
  let seenOutputs = 0;
  const chunks = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) {
          errors.push(`schema: ${result.error?.message ?? result.error}`);
          return;
        }
        const chunk = result.value;
        types.push(chunk.type);
        if (types.length === 1) process.stderr.write("ready\n");
        controller.enqueue(chunk);
        if (chunk.type === "tool-output-available" || chunk.type === "tool-output-error") {
          seenOutputs += 1;
          if (outputs !== undefined && seenOutputs >= outputs) {
            controller.terminate();
            abort?.();
          }
        }
      },
    }),
  );
  let message;
  // Per tool call, the states the reader showed it in, and how its partial input grew while
  // it was `input-streaming` (the SDK parses the text so far on every delta).
  const inputStates = {};
  try {
    for await (const m of readUIMessageStream({
      stream: chunks,
      terminateOnError: true,
      onError: (e) => errors.push(`read: ${e?.message ?? e}`),
    })) {
      message = m;
      for (const part of m.parts.filter((p) => p.type === "dynamic-tool" && p.state === "input-streaming")) {
        const seen = (inputStates[part.toolCallId] ??= { streaming: 0, lengths: [] });
        seen.streaming += 1;
        seen.lengths.push(JSON.stringify(part.input ?? null).length);
      }
    }
  } catch (e) {
    errors.push(`read: ${e?.message ?? e}`);
  }
  return { message, errors, types, inputStates };
}

function sseOf(lines) {
  const text = lines.map((l) => `data: ${l}\n\n`).join("") + "data: [DONE]\n\n";
  return new Blob([text]).stream();
}

class MemoryState {
  constructor() {
    this.status = "ready";
    this.error = undefined;
    this.messages = [];
  }
  pushMessage(m) {
    this.messages = this.messages.concat(m);
  }
  popMessage() {
    this.messages = this.messages.slice(0, -1);
  }
  replaceMessage(i, m) {
    this.messages = [...this.messages.slice(0, i), this.snapshot(m), ...this.messages.slice(i + 1)];
  }
  snapshot(thing) {
    return structuredClone(thing);
  }
}

class Chat extends AbstractChat {
  constructor(init) {
    super({ ...init, state: new MemoryState() });
  }
}

async function main() {
  if (mode === "offline") {
    const lines = readFileSync(0, "utf8").split("\n").filter((l) => l.trim() !== "");
    console.log(JSON.stringify(await read(sseOf(lines))));
    return;
  }
  const headers = process.env.TOOLVIEW_TOKEN ? { Authorization: `Bearer ${process.env.TOOLVIEW_TOKEN}` } : {};
  if (mode === "post") {
    const [url, body, outputs] = args;
    const controller = new AbortController();
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      signal: controller.signal,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    const header = res.headers.get("x-vercel-ai-ui-message-stream");
    const got = await read(res.body, outputs === undefined ? undefined : Number(outputs), () =>
      controller.abort(),
    );
    console.log(JSON.stringify({ ...got, header }));
    return;
  }
  if (mode === "chat") {
    const [api, session] = args;
    const errors = [];
    const transport = (follow) =>
      new DefaultChatTransport({
        api,
        headers,
        body: { toolview: { follow: false } },
        prepareReconnectToStreamRequest: ({ id }) => ({ api: `${api}/${id}/stream?follow=${follow}` }),
      });
    const prompts = [];
    const chat = new Chat({
      id: session,
      transport: transport(false),
      onError: (e) => errors.push(String(e?.message ?? e)),
      onData: (part) => {
        if (part.type === "data-toolview-notice") prompts.push(part.data.text);
      },
    });
    await chat.sendMessage({ text: "please go on" });
    const sent = structuredClone(chat.messages);
    await chat.resumeStream();
    const resumed = structuredClone(chat.messages);
    const none = new Chat({ id: "nobody-yet", transport: transport(false), onError: (e) => errors.push(String(e)) });
    await none.resumeStream();
    console.log(JSON.stringify({ sent, resumed, nothing: none.messages, prompts, errors, status: chat.status }));
    return;
  }
  if (mode === "approve") {
    // The UI answers the approval its stream showed (addToolApprovalResponse); the Chat sends
    // the answer by itself (sendAutomaticallyWhen), as useChat apps do.
    const [api, session, approved] = args;
    const errors = [];
    const chat = new Chat({
      id: session,
      transport: new DefaultChatTransport({ api, headers, body: { toolview: { follow: false } } }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onError: (e) => errors.push(String(e?.message ?? e)),
    });
    await chat.sendMessage({ text: "go on" });
    const asked = structuredClone(chat.messages);
    const part = chat.messages.at(-1).parts.find((p) => p.state === "approval-requested");
    if (!part) throw new Error(`no approval requested: ${JSON.stringify(chat.messages)}`);
    await chat.addToolApprovalResponse({ id: part.approval.id, approved: approved === "true", reason: "from the chat" });
    // The automatic send: wait for it to end.
    for (let i = 0; i < 100 && chat.status !== "ready"; i++) await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 100 && chat.status === "ready" && chat.messages === asked; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    console.log(JSON.stringify({ asked: part, messages: chat.messages, errors, status: chat.status }));
    return;
  }
  if (mode === "approve-counting") {
    // The same, approving, while counting the chat's POSTs until the call has its result (the
    // harness finishes it a while after the answer): the answer is sent once.
    const [api, session] = args;
    const errors = [];
    let posts = 0;
    const counting = (url, init) => {
      if ((init?.method ?? "GET") === "POST") posts += 1;
      return fetch(url, init);
    };
    const chat = new Chat({
      id: session,
      transport: new DefaultChatTransport({ api, headers, fetch: counting, body: { toolview: { follow: false } } }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onError: (e) => errors.push(String(e?.message ?? e)),
    });
    await chat.sendMessage({ text: "go on" });
    const part = chat.messages.at(-1).parts.find((p) => p.state === "approval-requested");
    if (!part) throw new Error(`no approval requested: ${JSON.stringify(chat.messages)}`);
    await chat.addToolApprovalResponse({ id: part.approval.id, approved: true, reason: "from the chat" });
    process.stderr.write("answered\n");
    const state = () => chat.messages.at(-1).parts.find((p) => p.toolCallId === part.toolCallId)?.state;
    // Bounded: 20 s for the harness to finish the call, then a second for any further POST.
    for (let i = 0; i < 400 && !(state() === "output-available" && chat.status === "ready"); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 1000));
    console.log(JSON.stringify({ posts, state: state(), status: chat.status, errors }));
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}

main().then(
  // Exit once stdout is written: a pipe takes a large report asynchronously.
  () => process.stdout.write("", () => process.exit(0)),
  (e) => {
    process.stderr.write(`ai_sdk_client: ${e?.stack ?? e}\n`);
    process.exit(1);
  },
);
