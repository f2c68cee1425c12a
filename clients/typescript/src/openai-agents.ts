// OpenAI Agents SDK (JavaScript) run hooks that publish a run as a toolview turn: each function
// tool call (with the model's call id and arguments), the model's messages and reasoning, the
// final answer, the token usage.
//
//   const hooks = new ToolviewRunHooks(client.session("my-session"));
//   const detach = hooks.attach(runner);            // a Runner from @openai/agents
//   await hooks.prompt("Make the port configurable.");
//   await runner.run(agent, "Make the port configurable.");
//   await hooks.settled();                           // every event is published (or failed)
//
// The SDK's hooks are synchronous event listeners, so the adapter queues its publishes and
// `settled()` reports the first failure. It names no type of the SDK: any emitter with the
// RunHooks events (`agent_start`, `agent_tool_start`, `agent_tool_end`, `agent_end`) works.
//
// The hooks see no message but the final answer: a streamed run passed through `watch()`
// (`for await (const event of hooks.watch(await runner.run(agent, input, { stream: true })))`)
// has the model's text and reasoning between the calls published as they come. The hooks carry no
// failure flag and no meta either: a tool that throws is published as failed when the SDK answers
// the model with its default error message, `errorFunction: toolFailure` also shows the error on
// the card, and `attachMeta(details, meta)` from a tool's `execute(input, context, details)`
// gives its result the presentation meta of docs/producers.md. A tool with `needsApproval` stops the
// run; `decideInterruptions(result)` asks for each approval through toolview and returns the
// state with the decisions applied, for `runner.run(agent, state)`. An agent used as a tool runs
// on a Runner of its own: `hooks.nest(agent, toolName)` listens to that agent's hooks and
// publishes its runs' calls and answers under the tool's call (docs/call-shapes.md#nesting).
import type { Call, Session, Turn } from "./events.js";
import { allowAlways, allowOnce, denial, rejectAlways, rejectOnce } from "./permissions.js";

/** A tool call waiting for approval, as the SDK's `RunToolApprovalItem` has it. */
export interface ApprovalItem {
  rawItem: { callId?: string; name?: string; arguments?: string };
  name?: string;
}

/** What `decideInterruptions` needs of a run's state (the SDK's `RunState`). */
export interface ApprovableState {
  approve(item: ApprovalItem, options?: { alwaysApprove?: boolean }): void;
  reject(item: ApprovalItem, options?: { alwaysReject?: boolean; message?: string }): void;
}

/** What the adapter needs of a Runner (or any RunHooks emitter). */
export interface RunHooksEmitter {
  // biome-ignore lint/suspicious/noExplicitAny: any emitter's typed listeners must fit here
  on(event: string, listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as for `on`
  off(event: string, listener: (...args: any[]) => void): unknown;
}

interface ToolCallItem {
  callId?: string;
  name?: string;
  arguments?: string;
}

/** The third argument of a tool's `execute` and `errorFunction`. */
export interface ToolDetails {
  toolCall?: ToolCallItem;
}

/** The SDK's answer to the model when a tool throws (its `defaultToolErrorFunction`). */
export const DEFAULT_TOOL_ERROR = "An error occurred while running the tool. Please try again.";

/** Calls whose failure or meta waits for their end; past it the oldest is forgotten (a tool run
 * without these hooks never ends one). */
export const PENDING_LIMIT = 10_000;

const failures = new Map<string, string>();
const metas = new Map<string, Record<string, unknown>>();

function keep<V>(table: Map<string, V>, callId: string | undefined, value: V): void {
  if (!callId) return;
  table.set(callId, value);
  while (table.size > PENDING_LIMIT) table.delete(table.keys().next().value as string);
}

/** A tool's `errorFunction`: the call's card shows failed with the error; the model gets the
 * SDK's default message. */
export function toolFailure(_context: unknown, error: unknown, details?: ToolDetails): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  keep(failures, details?.toolCall?.callId, text);
  return DEFAULT_TOOL_ERROR;
}

/** Gives the running call's result presentation meta (from a tool's `execute`). */
export function attachMeta(details: ToolDetails | undefined, meta: Record<string, unknown>): void {
  keep(metas, details?.toolCall?.callId, meta);
}

/** Placeholder item ids of models that are not the Responses API (Chat Completions, other
 * providers): every item has the same one, so the client draws ids instead. */
const FAKE_IDS = new Set(["__fake_id__", "FAKE_ID"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The text of a message's or reasoning item's parts. */
function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return "";
  return parts
    .filter(isObject)
    .map((p) => (typeof p.text === "string" ? p.text : ""))
    .join("");
}

export class ToolviewRunHooks {
  private turn: Promise<Turn> | undefined;
  private turnOpen = false;
  private readonly calls = new Map<string, Promise<Call>>();
  // Agent tools (`nest`): per tool name, its calls no nested run has taken yet.
  private readonly waiting = new Map<string, string[]>();
  private queue: Promise<unknown> = Promise.resolve();
  private failure: unknown;
  private watched = false;
  /** The run's end, from `agent_end`, until its turn is ended. */
  private ending: { answer: string; usage?: { inputTokens?: number; outputTokens?: number } } | undefined;

  constructor(readonly session: Session) {}

  // Publishes run in order, one after another; the first failure is kept for settled().
  private enqueue(step: () => Promise<unknown>): void {
    this.queue = this.queue.then(step).catch((e) => {
      this.failure ??= e;
    });
  }

  private openTurn(): void {
    if (this.turnOpen) return;
    this.turnOpen = true;
    const turn = this.session.startTurn();
    this.turn = turn;
    this.enqueue(() => turn);
  }

  /** Starts the turn with the user's prompt (before `runner.run`). */
  async prompt(text: string): Promise<void> {
    this.openTurn();
    this.enqueue(() => this.session.message("user", text));
    await this.settled();
  }

  /** Listens to a Runner's hooks; returns a function that stops listening. */
  attach(runner: RunHooksEmitter): () => void {
    // biome-ignore lint/suspicious/noExplicitAny: each listener reads its own event's arguments
    const listeners: [string, (...args: any[]) => void][] = [
      ["agent_start", () => this.openTurn()],
      [
        "agent_tool_start",
        (_context, _agent, tool: { name: string }, details?: { toolCall?: ToolCallItem }) =>
          this.toolStart(tool, details),
      ],
      [
        "agent_tool_end",
        (_context, _agent, tool: { name: string }, result: unknown, details?: { toolCall?: ToolCallItem }) =>
          this.toolEnd(tool, result, details),
      ],
      [
        "agent_end",
        (context: { usage?: { inputTokens?: number; outputTokens?: number } }, _agent, output: unknown) => {
          if (!this.turnOpen || !this.turn) return;
          this.turnOpen = false;
          const answer = typeof output === "string" ? output : output === undefined ? "" : JSON.stringify(output);
          const usage = context?.usage;
          this.ending = { answer, usage };
          // A watched run ends its turn after its last event (its last message may come later).
          if (!this.watched) this.endTurn();
        },
      ],
    ];
    for (const [event, listener] of listeners) runner.on(event, listener);
    return () => {
      for (const [event, listener] of listeners) runner.off(event, listener);
    };
  }

  /** A tool call started: its card, under `parent` (a nested run's call) when given. */
  private toolStart(tool: { name: string }, details: { toolCall?: ToolCallItem } | undefined, parent?: string): void {
    const item = details?.toolCall ?? {};
    const key = item.callId ?? `tool:${tool.name}`;
    // Started when its approval was asked (`decideInterruptions`).
    if (this.calls.has(key)) return;
    const call = this.session.startCall(tool.name, item.arguments ?? "", { callId: item.callId, parent });
    this.calls.set(key, call);
    this.enqueue(() => call);
    const waiting = this.waiting.get(tool.name);
    if (waiting && item.callId) waiting.push(item.callId);
  }

  /** A tool call ended: its result, failure or meta. */
  private toolEnd(tool: { name: string }, result: unknown, details: { toolCall?: ToolCallItem } | undefined): void {
    const key = details?.toolCall?.callId ?? `tool:${tool.name}`;
    const call = this.calls.get(key);
    this.calls.delete(key);
    const callId = details?.toolCall?.callId ?? "";
    const error = failures.get(callId);
    const meta = metas.get(callId);
    failures.delete(callId);
    metas.delete(callId);
    const text = typeof result === "string" ? result : String(result);
    if (!call) return;
    this.enqueue(async () => {
      if (error !== undefined) await (await call).finish(error, { isError: true });
      else if (text === DEFAULT_TOOL_ERROR) await (await call).finish(text, { isError: true });
      else await (await call).finish(text, { meta });
    });
  }

  /** An agent used as a tool (`agent.asTool({ toolName })`): its runs' calls and final answers
   * are published under the call of `toolName` each runs for, by listening to the agent's own
   * hooks (its runs have a Runner of their own). A run binds to the oldest call of the tool no
   * run has taken yet; runs are told apart by their run context, so runs going at once that
   * share one nest under the first (docs/call-shapes.md#nesting). Returns a function that stops
   * listening. */
  nest(agent: RunHooksEmitter, toolName: string): () => void {
    const waiting = this.waiting.get(toolName) ?? [];
    this.waiting.set(toolName, waiting);
    const runs = new Map<unknown, string>();
    // biome-ignore lint/suspicious/noExplicitAny: each listener reads its own event's arguments
    const listeners: [string, (...args: any[]) => void][] = [
      [
        "agent_start",
        (context: unknown) => {
          const parent = runs.has(context) ? undefined : waiting.shift();
          if (parent) runs.set(context, parent);
        },
      ],
      [
        "agent_tool_start",
        (context: unknown, tool: { name: string }, details?: { toolCall?: ToolCallItem }) =>
          this.toolStart(tool, details, runs.get(context)),
      ],
      [
        "agent_tool_end",
        (_context: unknown, tool: { name: string }, result: unknown, details?: { toolCall?: ToolCallItem }) =>
          this.toolEnd(tool, result, details),
      ],
      [
        "agent_end",
        (context: unknown, output: unknown) => {
          const parent = runs.get(context);
          runs.delete(context);
          const answer = typeof output === "string" ? output : output === undefined ? "" : JSON.stringify(output);
          if (answer) this.enqueue(() => this.session.message("assistant", answer, { parent }));
        },
      ],
    ];
    for (const [event, listener] of listeners) agent.on(event, listener);
    return () => {
      for (const [event, listener] of listeners) agent.off(event, listener);
    };
  }

  private endTurn(): void {
    const { turn, ending } = this;
    this.ending = undefined;
    if (!turn || !ending) return;
    const watched = this.watched;
    this.enqueue(async () => {
      // A watched run's answer came with its messages.
      if (ending.answer && !watched) await this.session.message("assistant", ending.answer);
      await (await turn).finish("end_turn", {
        inputTokens: BigInt(ending.usage?.inputTokens ?? 0),
        outputTokens: BigInt(ending.usage?.outputTokens ?? 0),
      });
    });
  }

  /** A streamed run's events, passed through: the model's messages and reasoning are published
   * as they come (the final answer among them), and the turn ends after the last. */
  async *watch<E>(events: AsyncIterable<E>): AsyncGenerator<E, void, undefined> {
    this.watched = true;
    try {
      for await (const event of events) {
        this.observe(event);
        yield event;
      }
    } finally {
      this.endTurn();
    }
  }

  private observe(event: unknown): void {
    if (!isObject(event) || event.type !== "run_item_stream_event" || !isObject(event.item)) return;
    const raw = event.item.rawItem;
    if (!isObject(raw)) return;
    const id = typeof raw.id === "string" && raw.id && !FAKE_IDS.has(raw.id) ? raw.id : undefined;
    if (event.name === "message_output_created") {
      const text = partsText(raw.content);
      if (text) this.enqueue(() => this.session.message("assistant", text, { messageId: id }));
    } else if (event.name === "reasoning_item_created") {
      const text = partsText(raw.content) || partsText(raw.rawContent);
      if (text) this.enqueue(() => this.session.message("reasoning", text, { messageId: id }));
    }
  }

  /** When a run stopped for approvals (tools with `needsApproval`), asks for each through
   * toolview — every UI watching the session shows the prompt on the call's card — and returns
   * the run's state with every decision applied, for `runner.run(agent, state)` to go on;
   * `undefined` when nothing waits. A rejected call's card ends failed, naming who rejected it;
   * the model is told the same. */
  async decideInterruptions<S extends ApprovableState>(
    result: { interruptions?: ApprovalItem[]; state: S },
    options: { timeoutMs?: number } = {},
  ): Promise<S | undefined> {
    const items = result.interruptions ?? [];
    if (items.length === 0) return undefined;
    for (const item of items) {
      const name = item.name ?? item.rawItem.name ?? "tool";
      const key = item.rawItem.callId ?? `tool:${name}`;
      let started = this.calls.get(key);
      if (!started) {
        // The card first, so the prompt shows on it; the run's `agent_tool_start` keeps it.
        started = this.session.startCall(name, item.rawItem.arguments ?? "", { callId: item.rawItem.callId });
        this.calls.set(key, started);
      }
      const call = await started;
      const decision = await call.requestPermission(
        `Run ${name}?`,
        [allowOnce(), allowAlways(), rejectOnce(), rejectAlways()],
        { timeoutMs: options.timeoutMs, requestId: `perm-${call.callId}` },
      );
      if (decision.allowed) {
        result.state.approve(item, { alwaysApprove: decision.kind === "allow_always" });
        continue;
      }
      const message = denial(decision);
      result.state.reject(item, { alwaysReject: decision.kind === "reject_always", message });
      this.calls.delete(key);
      await call.finish(message, { isError: true });
    }
    return result.state;
  }

  /** Resolves once every publish so far is buffered; rejects with the first failure. */
  async settled(): Promise<void> {
    await this.queue;
    if (this.failure !== undefined) throw this.failure;
  }
}
