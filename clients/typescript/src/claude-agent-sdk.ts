// Claude Agent SDK (TypeScript) hooks that publish a session's turns, prompts, tool calls and
// answers:
//
//   const hooks = new ToolviewHooks(client.session("my-session"));
//   for await (const message of query({ prompt, options: { hooks: hooks.hooks() } })) { … }
//
// Claude Code's tool names are toolview's second built-in vocabulary (Bash, Read, Edit, …), so
// the calls get the cards the ACP adapter for Claude Code shows. Each tool response becomes the
// result the model saw (Read's numbered lines, Bash's output) and the meta toolview reads
// (Edit's and Write's structuredPatch). The hooks never block or alter the agent: each returns
// `{}`. It names no type of the SDK: the hook inputs are read structurally.
import type { Call, Session, Turn } from "./events.js";

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

/** Hook callbacks for `options.hooks`: `UserPromptSubmit` starts a turn with the prompt,
 * `PreToolUse` starts a call (its id is the tool_use_id), `PostToolUse` and
 * `PostToolUseFailure` finish it, `Stop` adds the last answer and ends the turn. */
export class ToolviewHooks {
  private turn: Turn | undefined;
  private readonly calls = new Map<string, Call>();

  constructor(readonly session: Session) {}

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
    };
  }

  private async userPromptSubmit(input: Input): Promise<void> {
    if (this.turn && !this.turn.finished) await this.turn.finish("end_turn");
    this.turn = await this.session.startTurn();
    await this.session.message("user", String(input.prompt ?? ""));
  }

  private async preToolUse(input: Input, toolUseId?: string): Promise<void> {
    const id = String(input.tool_use_id ?? toolUseId ?? "");
    const call = await this.session.startCall(String(input.tool_name ?? ""), input.tool_input ?? {}, {
      callId: id || undefined,
    });
    this.calls.set(id, call);
  }

  private takeCall(input: Input, toolUseId?: string): Call | undefined {
    const id = String(input.tool_use_id ?? toolUseId ?? "");
    const call = this.calls.get(id);
    this.calls.delete(id);
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
    const exit = /^Exit code (\d+)/.exec(error);
    await call.finish(error, { isError: true, meta: exit ? { exit_code: Number(exit[1]) } : undefined });
  }

  private async stop(input: Input): Promise<void> {
    const answer = input.last_assistant_message;
    if (typeof answer === "string" && answer) await this.session.message("assistant", answer);
    if (this.turn && !this.turn.finished) await this.turn.finish("end_turn");
  }
}
