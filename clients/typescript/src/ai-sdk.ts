// An AI SDK (`ai` 7) telemetry integration that publishes a generation as it happens: the
// user's prompt and a turn when `generateText`/`streamText` starts, each tool call when its
// execution starts (so the card shows running while the tool works) and its result or error
// when it ends, the model's words and reasoning after each step, the usage at the end.
//
//   import { registerTelemetry } from "ai";
//   registerTelemetry(toolviewTelemetry(client.session("my-session")));
//   await generateText({ model, tools, prompt, experimental_telemetry: { isEnabled: true } });
//
// OTLP ingestion (`@ai-sdk/otel`'s spans exported to toolview) needs no code at all, but a span
// is exported when it ends, in batches: its card arrives finished, seconds late. This is the
// one line that makes the cards live; use one or the other for a session, not both (their ids
// differ, so both would show each call twice). It names no type of the `ai` package: it
// reads the events' documented fields, and any emitter with the same callbacks works.
import type { Call, Session, Turn } from "./events.js";

/** Generations (and calls) in flight; past this the oldest is forgotten (an emitter that
 * starts generations it never ends). */
export const IN_FLIGHT_LIMIT = 10_000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The operations that are an agent's turn. */
const TURNS = new Set(["ai.generateText", "ai.streamText"]);

/** A message's text: a string, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p) => isObject(p) && p.type === "text" && typeof p.text === "string")
    .map((p) => (p as { text: string }).text)
    .join("\n");
}

/** A tool's output as the card's text: a string as it is, anything else as JSON. */
function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (output === undefined) return "";
  try {
    return JSON.stringify(output);
  } catch {
    return String(output);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : outputText(error);
}

function remember<V>(table: Map<string, V>, key: string, value: V): void {
  table.set(key, value);
  while (table.size > IN_FLIGHT_LIMIT) table.delete(table.keys().next().value as string);
}

/** The integration: the AI SDK's `Telemetry` callbacks, and `settled()`. */
export interface ToolviewTelemetry {
  onStart(event: unknown): void;
  onToolExecutionStart(event: unknown): void;
  onToolExecutionEnd(event: unknown): void;
  onStepEnd(event: unknown): void;
  onEnd(event: unknown): void;
  onError(event: unknown): void;
  /** Resolves once every publish so far is buffered; rejects with the first failure. */
  settled(): Promise<void>;
}

/** A generation's token counts (`totalUsage`); a count not known is 0. */
function usageOf(event: unknown): { inputTokens: bigint; outputTokens: bigint } {
  const usage = isObject(event) && isObject(event.totalUsage) ? event.totalUsage : {};
  const count = (v: unknown) => BigInt(typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : 0);
  return { inputTokens: count(usage.inputTokens), outputTokens: count(usage.outputTokens) };
}

/** The text of a step's content parts of `type` (`text`, `reasoning`), joined. */
function partsText(content: unknown[], type: string): string {
  return content
    .filter(isObject)
    .filter((p) => p.type === type && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("");
}

/** An integration publishing into `session` (see the module comment). */
export function toolviewTelemetry(session: Session): ToolviewTelemetry {
  const turns = new Map<string, Promise<Turn>>();
  const calls = new Map<string, Promise<Call>>();
  let queue: Promise<unknown> = Promise.resolve();
  let failure: unknown;
  // Publishes run in order, one after another, never holding the agent up; the first failure
  // is kept for settled().
  const enqueue = (step: () => Promise<unknown>): void => {
    queue = queue.then(step).catch((e) => {
      failure ??= e;
    });
  };
  const generation = (event: unknown): string | undefined =>
    isObject(event) && typeof event.callId === "string" ? event.callId : undefined;
  const endTurn = (event: unknown, stop: "end_turn" | "cancelled") => {
    const id = generation(event);
    const turn = id === undefined ? undefined : turns.get(id);
    if (id === undefined || !turn) return;
    turns.delete(id);
    const usage = usageOf(event);
    enqueue(async () => (await turn).finish(stop, usage));
  };
  return {
    onStart(event) {
      const id = generation(event);
      if (id === undefined || !isObject(event) || !TURNS.has(String(event.operationId))) return;
      const turn = session.startTurn();
      remember(turns, id, turn);
      enqueue(() => turn);
      const messages = Array.isArray(event.messages) ? event.messages : [];
      const last = [...messages].reverse().find((m) => isObject(m) && m.role === "user");
      const text = isObject(last) ? textOf(last.content) : "";
      if (text) enqueue(() => session.message("user", text));
    },
    onToolExecutionStart(event) {
      if (!isObject(event) || !isObject(event.toolCall)) return;
      const { toolCallId, toolName, input } = event.toolCall;
      if (typeof toolName !== "string") return;
      const callId = typeof toolCallId === "string" && toolCallId ? toolCallId : undefined;
      const call = session.startCall(toolName, input ?? {}, { callId });
      if (callId) remember(calls, callId, call);
      enqueue(() => call);
    },
    onToolExecutionEnd(event) {
      if (!isObject(event) || !isObject(event.toolCall) || !isObject(event.toolOutput)) return;
      const id = event.toolCall.toolCallId;
      const call = typeof id === "string" ? calls.get(id) : undefined;
      if (!call || typeof id !== "string") return;
      calls.delete(id);
      const output = event.toolOutput;
      enqueue(async () =>
        output.type === "tool-error"
          ? (await call).finish(errorText(output.error), { isError: true })
          : (await call).finish(outputText(output.output)),
      );
    },
    onStepEnd(event) {
      const id = generation(event);
      if (id === undefined || !turns.has(id) || !isObject(event) || !Array.isArray(event.content)) return;
      const reasoning = partsText(event.content, "reasoning");
      const text = partsText(event.content, "text");
      if (reasoning) enqueue(() => session.message("reasoning", reasoning));
      if (text) enqueue(() => session.message("assistant", text));
    },
    onEnd(event) {
      endTurn(event, "end_turn");
    },
    onError(event) {
      endTurn(event, "cancelled");
    },
    async settled() {
      await queue;
      if (failure !== undefined) throw failure;
    },
  };
}
