// The events a harness publishes, with derived ids (see ids.ts), and the objects that publish
// them: Session, Call, Message, Turn.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { UsageError } from "./errors.js";
import {
  MessageRole,
  StopReason,
  type TokenUsageSchema,
  type ToolEvent,
  ToolEventSchema,
} from "./gen/toolview/v1/events_pb.js";
import type { ContentBlock, ToolCallView, ToolResultView } from "./gen/toolview/v1/views_pb.js";
import { ContentBlockSchema } from "./gen/toolview/v1/views_pb.js";
import { eventId, newId, safeId } from "./ids.js";
import {
  DEFAULT_OPTIONS,
  type Decision,
  type PermissionOption,
  PermissionRequest,
  type PermissionRequestOptions,
} from "./permissions.js";

/** Publishes a permission request and resolves to its decision (the client's). */
export type Ask = (request: PermissionRequest) => Promise<Decision>;

const noAsk: Ask = () => Promise.reject(new UsageError("this session cannot ask: it has no client"));

/** A call's arguments: a JSON-able value, or the raw argument text. */
export type Arguments = unknown;
/** A call's result: text, or content blocks. */
export type Result = string | ContentBlock[] | undefined;
/** Presentation meta: a JSON-able value, or JSON text. */
export type Meta = unknown;
/** Who a message is from. */
export type Role = "user" | "assistant" | "reasoning";
/** Why a turn ended. */
export type Stop = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";
/** A turn's token counts; absent means not known. */
export type Usage = MessageInitShape<typeof TokenUsageSchema>;

const ROLES: Record<Role, MessageRole> = {
  user: MessageRole.USER,
  assistant: MessageRole.ASSISTANT,
  reasoning: MessageRole.REASONING,
};
const STOPS: Record<Stop, StopReason> = {
  end_turn: StopReason.END_TURN,
  max_tokens: StopReason.MAX_TOKENS,
  max_turn_requests: StopReason.MAX_TURN_REQUESTS,
  refusal: StopReason.REFUSAL,
  cancelled: StopReason.CANCELLED,
};

/** A text content block. */
export function textBlock(text: string): ContentBlock {
  return create(ContentBlockSchema, { block: { case: "text", value: { text } } });
}

// Display input never fails: what JSON cannot say (a cycle, a BigInt) is shown as its String().
function json(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v)) ?? "";
  } catch {
    return String(value);
  }
}

export function argumentsJson(args: Arguments): string {
  return json(args);
}

export function metaJson(meta: Meta): string {
  return json(meta);
}

export function contentOf(result: Result): ContentBlock[] {
  if (result === undefined) return [];
  return typeof result === "string" ? [textBlock(result)] : result;
}

type Put = (event: ToolEvent) => Promise<void>;

function event(sessionId: string, id: string, init: MessageInitShape<typeof ToolEventSchema>["event"]): ToolEvent {
  return create(ToolEventSchema, { sessionId, eventId: id, event: init });
}

/** The call ids a client started, per session: a second start of one is refused before it is
 * sent (the server would take it for a duplicate of the first). Remembers the latest
 * `Ledger.MAX` starts, so a long-running harness's memory stays bounded. */
export class Ledger {
  static readonly MAX = 100_000;
  private readonly started = new Set<string>();

  start(sessionId: string, callId: string): void {
    const key = `${sessionId}\u0000${callId}`;
    if (this.started.has(key)) throw new UsageError(`call ${callId}: already started in session ${sessionId}`);
    this.started.add(key);
    if (this.started.size > Ledger.MAX) {
      const oldest = this.started.values().next().value;
      if (oldest !== undefined) this.started.delete(oldest);
    }
  }
}

/** A started tool call: its input while the model writes it (a call started with
 * `streaming: true`), its live output, then its end. */
export class Call {
  private chunks = 0;
  private pieces = 0;
  finished = false;
  constructor(
    private readonly put: Put,
    private readonly sessionId: string,
    readonly callId: string,
    private readonly ask: Ask = noAsk,
    private inputOpen = false,
    private readonly session?: Session,
  ) {}

  /** A call this one runs (a subagent's call under the call that runs the subagent):
   * `Session.startCall` with `parent` this call. */
  childCall(
    tool: string,
    args?: Arguments,
    options: { callId?: string; view?: ToolCallView; streaming?: boolean } = {},
  ): Promise<Call> {
    if (!this.session) return Promise.reject(new UsageError(`call ${this.callId}: made without its session`));
    return this.session.startCall(tool, args, { ...options, parent: this });
  }

  /** More of the arguments' text, as the model writes it. */
  inputDelta(text: string): Promise<void> {
    const refused = this.inputRefusal("inputDelta");
    if (refused) return Promise.reject(refused);
    this.pieces += 1;
    const id = eventId("call", this.callId, "in", this.pieces);
    return this.put(event(this.sessionId, id, { case: "callInputDelta", value: { callId: this.callId, text } }));
  }

  /** The whole arguments: the presenters read these. */
  inputComplete(args?: Arguments, options: { view?: ToolCallView } = {}): Promise<void> {
    const refused = this.inputRefusal("inputComplete");
    if (refused) return Promise.reject(refused);
    this.inputOpen = false;
    const value = { callId: this.callId, argumentsJson: argumentsJson(args), view: options.view };
    return this.put(event(this.sessionId, eventId("call", this.callId, "input"), { case: "callInputComplete", value }));
  }

  private inputRefusal(what: string): UsageError | undefined {
    if (this.finished) return new UsageError(`call ${this.callId}: ${what} after its finish`);
    if (!this.inputOpen)
      return new UsageError(
        `call ${this.callId}: ${what} needs a call started with streaming: true whose input is not complete yet`,
      );
    return undefined;
  }

  /** Asks whether this call may go on; resolves to the decision (see
   * `Session.requestPermission`). */
  requestPermission(
    title: string,
    options: readonly PermissionOption[] = DEFAULT_OPTIONS,
    opts: PermissionRequestOptions = {},
  ): Promise<Decision> {
    try {
      return this.ask(new PermissionRequest(this.sessionId, title, options, { ...opts, callId: this.callId }));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** A chunk of live output. */
  output(data: string): Promise<void> {
    if (this.finished) return Promise.reject(new UsageError(`call ${this.callId}: output after its finish`));
    if (this.inputOpen)
      return Promise.reject(new UsageError(`call ${this.callId}: its input is still streaming: inputComplete first`));
    this.chunks += 1;
    const id = eventId("call", this.callId, this.chunks);
    return this.put(event(this.sessionId, id, { case: "callOutput", value: { callId: this.callId, data } }));
  }

  /** The call's end: its result, whether it failed, presentation meta, or a custom view. */
  finish(result?: Result, options: { isError?: boolean; meta?: Meta; view?: ToolResultView } = {}): Promise<void> {
    if (this.finished) return Promise.reject(new UsageError(`call ${this.callId}: finished twice`));
    this.finished = true;
    const value = {
      callId: this.callId,
      content: contentOf(result),
      isError: options.isError ?? false,
      metaJson: metaJson(options.meta),
      view: options.view,
    };
    return this.put(event(this.sessionId, eventId("call", this.callId, "end"), { case: "callFinished", value }));
  }
}

/** A parent's call id: a started call's, a given id, or none (""). */
function parentOf(parent: Call | string | undefined): string {
  if (parent === undefined || parent === "") return "";
  return typeof parent === "string" ? safeId(parent) : parent.callId;
}

/** A started message: more text, then its end. */
export class Message {
  private deltas = 0;
  constructor(
    private readonly put: Put,
    private readonly sessionId: string,
    readonly messageId: string,
  ) {}

  append(text: string): Promise<void> {
    this.deltas += 1;
    const id = eventId("msg", this.messageId, this.deltas);
    return this.put(event(this.sessionId, id, { case: "messageDelta", value: { messageId: this.messageId, text } }));
  }

  finish(): Promise<void> {
    const id = eventId("msg", this.messageId, "end");
    return this.put(event(this.sessionId, id, { case: "messageFinished", value: { messageId: this.messageId } }));
  }
}

/** A started turn. */
export class Turn {
  finished = false;
  constructor(
    private readonly put: Put,
    private readonly sessionId: string,
    readonly turnId: string,
  ) {}

  finish(stop: Stop | undefined = "end_turn", usage?: Usage): Promise<void> {
    this.finished = true;
    const value = { turnId: this.turnId, stopReason: stop ? STOPS[stop] : StopReason.UNSPECIFIED, usage };
    return this.put(event(this.sessionId, eventId("turn", this.turnId, "end"), { case: "turnFinished", value }));
  }
}

/** One session's publishing side. Ids left out are drawn at random; every event id is derived
 * from its subject, so a retry is a duplicate. */
export class Session {
  constructor(
    private readonly put: Put,
    readonly sessionId: string,
    private readonly ledger: Ledger = new Ledger(),
    private readonly ask: Ask = noAsk,
  ) {}

  /** Asks a person to decide (about `callId`, or a question of its own): every UI watching
   * the session shows the prompt, the first authorized answer wins. Resolves to the decision;
   * nobody answering within `timeoutMs` (the server's default when absent) is `expiryOption`
   * (the first reject option by default). */
  requestPermission(
    title: string,
    options: readonly PermissionOption[] = DEFAULT_OPTIONS,
    opts: PermissionRequestOptions & { callId?: string } = {},
  ): Promise<Decision> {
    try {
      return this.ask(new PermissionRequest(this.sessionId, title, options, opts));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The session began in `cwd` (absolute): paths under it are shown relative. */
  start(cwd = ""): Promise<void> {
    return this.put(event(this.sessionId, eventId("session"), { case: "sessionStarted", value: { cwd } }));
  }

  /** The harness closed the session: its state is `ended` until anything starts in it again.
   * `reason` is display text. */
  end(reason = ""): Promise<void> {
    // A session may end, resume and end again: each end is its own event.
    return this.put(event(this.sessionId, newId("end"), { case: "sessionEnded", value: { reason } }));
  }

  /** A tool call started: its name (matched against the built-in presenters) and arguments.
   * With `streaming: true` the model is still writing them: `args` is their text so far (or
   * nothing), `Call.inputDelta` appends and `Call.inputComplete` gives them whole; until then
   * UIs show the call pending with its input so far. */
  async startCall(
    tool: string,
    args?: Arguments,
    options: { callId?: string; view?: ToolCallView; streaming?: boolean; parent?: Call | string } = {},
  ): Promise<Call> {
    const callId = options.callId ? safeId(options.callId) : newId("call");
    const streaming = options.streaming ?? false;
    const parentCallId = parentOf(options.parent);
    if (parentCallId === callId) throw new UsageError(`call ${callId}: a call cannot run under itself`);
    if (streaming && args !== undefined && typeof args !== "string")
      throw new UsageError(
        `call ${callId}: a streaming call starts with the text of its arguments so far (a string, or nothing); ` +
          "give the whole arguments to inputComplete",
      );
    this.ledger.start(this.sessionId, callId);
    const argumentsText = streaming ? ((args as string | undefined) ?? "") : argumentsJson(args);
    const value = {
      callId,
      toolName: tool,
      argumentsJson: argumentsText,
      view: options.view,
      inputStreaming: streaming,
      parentCallId,
    };
    await this.put(event(this.sessionId, eventId("call", callId), { case: "callStarted", value }));
    return new Call(this.put, this.sessionId, callId, this.ask, streaming, this);
  }

  /** A message (`user`, `assistant` or `reasoning`) began with `text`. */
  async startMessage(
    role: Role,
    text = "",
    options: { messageId?: string; parent?: Call | string } = {},
  ): Promise<Message> {
    const messageId = options.messageId ? safeId(options.messageId) : newId("msg");
    const value = { messageId, role: ROLES[role], text, parentCallId: parentOf(options.parent) };
    await this.put(event(this.sessionId, eventId("msg", messageId), { case: "messageStarted", value }));
    return new Message(this.put, this.sessionId, messageId);
  }

  /** A whole message; resolves to its id. */
  async message(
    role: Role,
    text: string,
    options: { messageId?: string; parent?: Call | string } = {},
  ): Promise<string> {
    const message = await this.startMessage(role, text, options);
    await message.finish();
    return message.messageId;
  }

  /** A turn began. */
  async startTurn(turnId?: string): Promise<Turn> {
    const id = turnId ? safeId(turnId) : newId("turn");
    await this.put(event(this.sessionId, eventId("turn", id), { case: "turnStarted", value: { turnId: id } }));
    return new Turn(this.put, this.sessionId, id);
  }

  /** A raw event (its `sessionId` is set to this session's). */
  publish(raw: ToolEvent): Promise<void> {
    return this.put({ ...raw, sessionId: this.sessionId });
  }
}
