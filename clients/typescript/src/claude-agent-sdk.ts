// Claude Agent SDK (TypeScript) hooks that publish a session's turns, prompts, tool calls and
// answers:
//
//   const hooks = new ToolviewHooks(client.session("my-session"));
//   for await (const message of hooks.watch(query({ prompt, options: { hooks: hooks.hooks() } }))) { … }
//
// Claude Code's tool names are toolview's second built-in vocabulary (Bash, Read, Edit, …), so
// the calls get the cards the ACP adapter for Claude Code shows. Each tool response becomes the
// result the model saw (Read's numbered lines, Bash's output, Grep's and Glob's matches) and the
// meta toolview reads (Edit's and Write's structuredPatch, a command's exit_code). A command that
// ran and exited non-zero is a terminal card with its exit code, not an error. The hooks never
// block or alter the agent: each returns `{}`. It names no type of the SDK: the hook inputs and
// messages are read structurally.
//
// `canUseTool` (the `canUseTool` option of `query()`, optional) asks for permission through
// toolview: every UI watching the session shows the prompt on the call's card, the first
// authorized answer decides (docs/approvals.md).
//
// The hooks see no text from the model: `watch` (optional) passes query()'s messages through and
// publishes the assistant's text and thinking as they come, then ends the turn with the run's
// usage when its result arrives (without it, `Stop` ends the turn with the last answer).
import type { Call, Session, Stop, Turn, Usage } from "./events.js";
import { allowAlways, allowOnce, denial, rejectOnce } from "./permissions.js";

/** What `canUseTool` answers Claude Code (the SDK's `PermissionResult`). */
export type PermissionAnswer =
  | { behavior: "allow"; updatedInput: Record<string, unknown>; updatedPermissions?: unknown[] }
  | { behavior: "deny"; message: string };

/** A prompt for a tool call when Claude Code gives none: `Run npm test?`. */
export function promptFor(toolName: string, args: Record<string, unknown>): string {
  if (toolName === "Bash" && typeof args.command === "string") return `Run ${args.command}?`;
  if (["Edit", "MultiEdit", "Write"].includes(toolName) && typeof args.file_path === "string")
    return `${toolName === "Write" ? "Write" : "Edit"} ${args.file_path}?`;
  return `Use ${toolName}?`;
}

type Input = Record<string, unknown>;
/** A hook callback as the SDK calls it. */
export type HookCallback = (
  input: Input,
  toolUseId: string | undefined,
  options: { signal: AbortSignal },
) => Promise<Record<string, never>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The result text and presentation meta for a Claude Code tool response. */
export function resultOf(toolName: string, response: unknown): { text: string; meta?: Record<string, unknown> } {
  if (typeof response === "string") return { text: response };
  if (!isObject(response)) return { text: JSON.stringify(response) ?? "" };
  const file = response.file;
  if (toolName === "Read" && isObject(file)) {
    const first = Number.isInteger(file.startLine) ? (file.startLine as number) : 1;
    const lines = String(file.content ?? "").split("\n");
    if (lines.at(-1) === "") lines.pop();
    // The numbered form Claude Code gives the model, which toolview's Read presenter reads.
    return { text: lines.map((line, i) => `${String(first + i).padStart(6)}→${line}`).join("\n") };
  }
  if (toolName === "Bash" && "stdout" in response) {
    return { text: [response.stdout, response.stderr].filter((p) => typeof p === "string" && p).join("\n") };
  }
  const search = searchText(toolName, response);
  if (search !== undefined) return { text: search };
  if (["Edit", "MultiEdit", "Write"].includes(toolName) && Array.isArray(response.structuredPatch)) {
    const meta: Record<string, unknown> = { structuredPatch: response.structuredPatch };
    if (typeof response.filePath === "string") meta.filePath = response.filePath;
    const verb = response.type === "create" ? "created" : "updated";
    return { text: `The file ${response.filePath} has been ${verb}.`, meta };
  }
  if (Array.isArray(response.content)) {
    const texts = response.content.filter((b) => isObject(b) && b.type === "text").map((b) => String(b.text ?? ""));
    if (texts.length > 0) return { text: texts.join("\n") };
  }
  return { text: JSON.stringify(response) };
}

/** Grep's and Glob's matches as Claude Code gives them to the model. */
function searchText(toolName: string, response: Record<string, unknown>): string | undefined {
  const files = Array.isArray(response.filenames) ? response.filenames.map(String) : [];
  if (toolName === "Grep" && typeof response.content === "string" && response.content) return response.content;
  if ((toolName === "Grep" || toolName === "Glob") && ("filenames" in response || "numFiles" in response)) {
    if (files.length > 0) return files.join("\n");
    return toolName === "Glob" ? "No files found" : "No matches found";
  }
  return undefined;
}

const count = (usage: Record<string, unknown>, key: string): bigint => {
  const v = usage[key];
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? BigInt(v) : 0n;
};

/** The result's token counts (the Messages API's names). */
function usageOf(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const cached = count(usage, "cache_read_input_tokens");
  return {
    inputTokens: count(usage, "input_tokens") + cached + count(usage, "cache_creation_input_tokens"),
    outputTokens: count(usage, "output_tokens"),
    cachedInputTokens: cached,
  };
}

/** How the run ended, in toolview's (ACP's) stop reasons. */
function stopReasonOf(result: Record<string, unknown>): Stop {
  if (result.subtype === "error_max_turns") return "max_turn_requests";
  if (result.stop_reason === "max_tokens") return "max_tokens";
  if (result.stop_reason === "refusal") return "refusal";
  return "end_turn";
}

/** The tools whose call runs a subagent. */
export const SUBAGENT_TOOLS: readonly string[] = ["Task", "Agent"];

/** Hook callbacks for `options.hooks`: `UserPromptSubmit` starts a turn with the prompt,
 * `PreToolUse` starts a call (its id is the tool_use_id), `PostToolUse` and
 * `PostToolUseFailure` finish it, `Stop` adds the last answer and ends the turn (unless `watch`
 * ends it, with usage). */
export class ToolviewHooks {
  private turn: Turn | undefined;
  private readonly calls = new Map<string, Call>();
  // Subagents (docs/call-shapes.md#nesting): agent id -> its Task call; Task calls not yet bound
  // to an agent, oldest first; a tool_use_id -> the Task call it runs under, from the
  // subagent's messages (`watch`).
  private readonly agents = new Map<string, string>();
  private readonly unbound: string[] = [];
  private readonly parents = new Map<string, string>();
  private watched = false;
  /** Milliseconds people have to answer a permission request (the server's default when absent). */
  readonly permissionTimeoutMs: number | undefined;

  constructor(
    readonly session: Session,
    options: { permissionTimeoutMs?: number } = {},
  ) {
    this.permissionTimeoutMs = options.permissionTimeoutMs;
  }

  /** The `hooks` option: every tool, every event the adapter uses. */
  hooks(): Record<string, { hooks: HookCallback[] }[]> {
    const one = (callback: (input: Input, toolUseId?: string) => Promise<void>): { hooks: HookCallback[] }[] => [
      {
        hooks: [
          async (input, toolUseId) => {
            await callback(input, toolUseId);
            return {};
          },
        ],
      },
    ];
    return {
      UserPromptSubmit: one((input) => this.userPromptSubmit(input)),
      PreToolUse: one((input, id) => this.preToolUse(input, id)),
      PostToolUse: one((input, id) => this.postToolUse(input, id)),
      PostToolUseFailure: one((input, id) => this.postToolUseFailure(input, id)),
      Stop: one((input) => this.stop(input)),
      SubagentStart: one((input) => this.subagentStart(input)),
      SubagentStop: one(async (input) => {
        this.agents.delete(String(input.agent_id ?? ""));
      }),
    };
  }

  /** The `canUseTool` option of `query()`: asks through toolview, so every UI watching the
   * session shows the prompt and any with the `approve` right may answer it; the decision goes
   * back to Claude Code. Allow runs the tool with its input (always-allow with Claude Code's
   * suggested permission updates); a reject, the expiry or a withdrawal denies it, naming who
   * decided. Claude Code's abort withdraws the request. */
  canUseTool = async (
    toolName: string,
    input: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      suggestions?: unknown[];
      toolUseID?: string;
      title?: string;
      description?: string;
      decisionReason?: string;
      suppressAlwaysAllowRule?: boolean;
    },
  ): Promise<PermissionAnswer> => {
    const id = options.toolUseID ?? "";
    const suggestions = options.suggestions ?? [];
    const always = suggestions.length > 0 && !options.suppressAlwaysAllowRule;
    const call = this.calls.get(id);
    const requestId = id ? `perm-${id}` : undefined;
    const asked = this.session.requestPermission(
      options.title ?? promptFor(toolName, input),
      [allowOnce(), ...(always ? [allowAlways()] : []), rejectOnce()],
      {
        callId: call?.callId,
        description: options.description ?? options.decisionReason ?? "",
        timeoutMs: this.permissionTimeoutMs,
        requestId,
      },
    );
    const decision = await asked;
    if (decision.allowed)
      return {
        behavior: "allow",
        updatedInput: input,
        ...(decision.kind === "allow_always" ? { updatedPermissions: suggestions } : {}),
      };
    return { behavior: "deny", message: denial(decision) };
  };

  /** query()'s messages, passed through: the assistant's text and thinking are published as
   * messages, and the run's result ends the turn with its usage. */
  async *watch<M>(messages: AsyncIterable<M>): AsyncGenerator<M, void, undefined> {
    this.watched = true;
    for await (const message of messages) {
      await this.observe(message);
      yield message;
    }
  }

  /** Publishes what one of query()'s messages says (for a loop of your own). */
  async observe(message: unknown): Promise<void> {
    this.watched = true;
    if (!isObject(message)) return;
    if (message.type === "assistant" && isObject(message.message)) {
      // A subagent's message names the Task call it runs under.
      const parent = typeof message.parent_tool_use_id === "string" ? message.parent_tool_use_id : undefined;
      const base = typeof message.uuid === "string" ? message.uuid : message.message.id;
      const content = Array.isArray(message.message.content) ? message.message.content : [];
      for (const [i, block] of content.entries()) {
        const messageId = typeof base === "string" && base ? `${base}:${i}` : undefined;
        if (!isObject(block)) continue;
        if (block.type === "text" && typeof block.text === "string" && block.text)
          await this.session.message("assistant", block.text, { messageId, parent });
        else if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking)
          await this.session.message("reasoning", block.thinking, { messageId, parent });
        else if (block.type === "tool_use" && typeof block.id === "string" && parent)
          this.parents.set(block.id, parent);
      }
    } else if (message.type === "result" && this.turn && !this.turn.finished) {
      await this.turn.finish(stopReasonOf(message), usageOf(message.usage));
    }
  }

  private async userPromptSubmit(input: Input): Promise<void> {
    if (this.turn && !this.turn.finished) await this.turn.finish("end_turn");
    this.turn = await this.session.startTurn();
    await this.session.message("user", String(input.prompt ?? ""));
  }

  private async preToolUse(input: Input, toolUseId?: string): Promise<void> {
    const id = String(input.tool_use_id ?? toolUseId ?? "");
    const tool = String(input.tool_name ?? "");
    const parent = this.parents.get(id) ?? this.agents.get(String(input.agent_id ?? ""));
    this.parents.delete(id);
    const call = await this.session.startCall(tool, input.tool_input ?? {}, { callId: id || undefined, parent });
    this.calls.set(id, call);
    if (SUBAGENT_TOOLS.includes(tool) && id) this.unbound.push(id);
  }

  /** A subagent began: its tool hooks (`agent_id`) belong under the oldest Task call not yet
   * bound to one. */
  private async subagentStart(input: Input): Promise<void> {
    const agent = String(input.agent_id ?? "");
    const task = agent ? this.unbound.shift() : undefined;
    if (task) this.agents.set(agent, task);
  }

  private takeCall(input: Input, toolUseId?: string): Call | undefined {
    const id = String(input.tool_use_id ?? toolUseId ?? "");
    const call = this.calls.get(id);
    this.calls.delete(id);
    const waiting = this.unbound.indexOf(id);
    if (waiting >= 0) this.unbound.splice(waiting, 1);
    return call;
  }

  private async postToolUse(input: Input, toolUseId?: string): Promise<void> {
    const call = this.takeCall(input, toolUseId);
    if (!call) return;
    const { text, meta } = resultOf(String(input.tool_name ?? ""), input.tool_response);
    await call.finish(text, { meta });
  }

  private async postToolUseFailure(input: Input, toolUseId?: string): Promise<void> {
    const call = this.takeCall(input, toolUseId);
    if (!call) return;
    const error = String(input.error ?? "");
    const exit = /^Exit code (-?\d+)\n?/.exec(error);
    if (exit && input.tool_name === "Bash") {
      // The command ran and failed: its output, with its exit code (a terminal card).
      await call.finish(error.slice(exit[0].length), { meta: { exit_code: Number(exit[1]) } });
    } else {
      await call.finish(error, { isError: true });
    }
  }

  private async stop(input: Input): Promise<void> {
    if (this.watched) return; // the text came with the messages, and the result ends the turn
    const answer = input.last_assistant_message;
    if (typeof answer === "string" && answer) await this.session.message("assistant", answer);
    if (this.turn && !this.turn.finished) await this.turn.finish("end_turn");
  }
}
