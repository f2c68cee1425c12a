// OpenAI Agents SDK (JavaScript) run hooks that publish a run as a toolview turn: each function
// tool call (with the model's call id and arguments), the final answer, the token usage.
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
import type { Call, Session, Turn } from "./events.js";

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

export class ToolviewRunHooks {
  private turn: Promise<Turn> | undefined;
  private turnOpen = false;
  private readonly calls = new Map<string, Promise<Call>>();
  private queue: Promise<unknown> = Promise.resolve();
  private failure: unknown;

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
        (_context, _agent, tool: { name: string }, details?: { toolCall?: ToolCallItem }) => {
          const item = details?.toolCall ?? {};
          const key = item.callId ?? `tool:${tool.name}`;
          const call = this.session.startCall(tool.name, item.arguments ?? "", { callId: item.callId });
          this.calls.set(key, call);
          this.enqueue(() => call);
        },
      ],
      [
        "agent_tool_end",
        (_context, _agent, tool: { name: string }, result: unknown, details?: { toolCall?: ToolCallItem }) => {
          const key = details?.toolCall?.callId ?? `tool:${tool.name}`;
          const call = this.calls.get(key);
          this.calls.delete(key);
          if (call) this.enqueue(async () => (await call).finish(typeof result === "string" ? result : String(result)));
        },
      ],
      [
        "agent_end",
        (context: { usage?: { inputTokens?: number; outputTokens?: number } }, _agent, output: unknown) => {
          const turn = this.turn;
          if (!this.turnOpen || !turn) return;
          this.turnOpen = false;
          const answer = typeof output === "string" ? output : output === undefined ? "" : JSON.stringify(output);
          const usage = context?.usage;
          this.enqueue(async () => {
            if (answer) await this.session.message("assistant", answer);
            await (await turn).finish("end_turn", {
              inputTokens: BigInt(usage?.inputTokens ?? 0),
              outputTokens: BigInt(usage?.outputTokens ?? 0),
            });
          });
        },
      ],
    ];
    for (const [event, listener] of listeners) runner.on(event, listener);
    return () => {
      for (const [event, listener] of listeners) runner.off(event, listener);
    };
  }

  /** Resolves once every publish so far is buffered; rejects with the first failure. */
  async settled(): Promise<void> {
    await this.queue;
    if (this.failure !== undefined) throw this.failure;
  }
}
