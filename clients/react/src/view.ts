// The VIEW JSON of toolview's spec (`union.md`, "JSON form"), as TypeScript: what AG-UI's
// `toolview.card` activity content and the AI SDK's `data-toolview-card` part carry, and what
// every component of this package draws. Every string in it is untrusted text (tool output,
// commands, paths): the components show it as text, never as markup.

/** Where a call is in its life. */
export type CallStatusName = "pending" | "in_progress" | "completed" | "failed";

/** A follow-along target: `line` is 1-based. */
export interface FileLocation {
  path: string;
  line?: number;
}

/** A run of a diff's lines: `context` takes the next `lines` lines of both sides, `removed` of
 *  the old side, `added` of the new. */
export interface DiffRun {
  op: "context" | "removed" | "added";
  lines: number;
}

/** One change; `oldText: null` means no before-image (a new file, an unseen overwrite). `runs`
 *  is the line diff as the server drew it (each side split at `\n`), absent when empty. */
export interface FileDiff {
  path: string;
  oldText: string | null;
  newText: string;
  runs?: DiffRun[];
}

/** What a card body shows. */
export type ContentBlockView =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "image"; mimeType: string; data?: string; uri?: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string };

/** A numbered line of a file window. */
export interface ReadLine {
  number: number;
  text: string;
}

/** A file's matching lines. */
export interface SearchFileMatches {
  path: string;
  matches: { lineNumber: number; line: string }[];
}

/** A web search's source. */
export interface WebSource {
  url: string;
  title?: string;
  snippet?: string;
  publishedAt?: string;
}

/** How a call looks while it is pending or running. */
export type ToolCallView =
  | {
      card: "generic";
      title: string;
      kind?: string;
      rawInput?: unknown;
      content?: ContentBlockView[];
      locations?: FileLocation[];
    }
  | { card: "terminal"; title: string; description?: string; cwd?: string }
  | { card: "diff"; title: string; diffs: FileDiff[]; locations?: FileLocation[] };

/** How the finished call looks. */
export type ToolResultView =
  | { card: "generic"; title?: string; content?: ContentBlockView[] }
  | { card: "terminal"; title?: string; output?: string; exitCode?: number; signal?: string }
  | { card: "diff"; title?: string; diffs: FileDiff[]; locations?: FileLocation[] }
  | ({ card: "search"; title?: string; truncated: boolean; total: number } & (
      | { shape: "matches"; files: SearchFileMatches[] }
      | { shape: "paths"; paths: string[] }
    ))
  | {
      card: "read";
      title?: string;
      path: string;
      offset: number;
      lines: ReadLine[];
      totalLines: number;
      lang?: string;
      content?: ContentBlockView[];
    }
  | ({ card: "web"; title?: string } & (
      | { kind: "search"; sources: WebSource[]; answer?: string; truncated: boolean }
      | { kind: "fetch"; url: string; statusCode: number; truncated: boolean }
    ));

/** What a call's children (a subagent's calls) are doing. */
export interface ChildProgress {
  running: number;
  done: number;
  failed: number;
  latest: string;
}

/** The MCP App a call's result carries (only an app host can show it). */
export interface McpAppView {
  resourceUri: string;
  serverId?: string;
  serverHash?: string;
  structuredContent?: unknown;
}

/** One call's card: the VIEW card snapshot. */
export interface CardView {
  callId: string;
  /** Empty for an orphan (a result without a started call). */
  toolName: string;
  status: CallStatusName;
  /** Absent for an orphan. */
  call?: ToolCallView;
  /** Present once the call finished. */
  result?: ToolResultView;
  /** The live output so far. */
  streamed: string;
  /** A pending call's input so far, as the model writes it. */
  input?: string;
  /** The call this one runs under (a subagent's call). */
  parentCallId?: string;
  depth?: number;
  children?: ChildProgress;
  mcpApp?: McpAppView;
  /** AG-UI only: output appended after `streamed` by `ACTIVITY_DELTA`s (shown after it). */
  chunks?: string[];
}

/** Who speaks a message. */
export type RoleName = "user" | "assistant" | "reasoning";

/** A conversation item: a prompt, an answer, the model's reasoning. */
export interface MessageView {
  messageId: string;
  role: RoleName;
  text: string;
  /** `streaming` while it is written. */
  status: "streaming" | "complete";
  parentCallId?: string;
}

/** An option of a permission request. */
export interface PermissionOptionView {
  optionId: string;
  name: string;
  kind: "allow_once" | "allow_always" | "reject_once" | "reject_always";
}

/** A permission request and, once decided, its decision: the JSON of AG-UI's
 *  `toolview.permission` activity and the AI SDK's `data-toolview-permission` part. */
export interface PermissionView {
  requestId: string;
  /** The call it is about, when it is about one. */
  callId?: string;
  title: string;
  description: string;
  state: "pending" | "selected" | "expired" | "withdrawn";
  options: PermissionOptionView[];
  expiryOptionId: string;
  /** RFC 3339, milliseconds, UTC. */
  expiresAt: string;
  expiresAtMs: number;
  resolution?: {
    /** The option that applies (absent for a withdrawal). */
    optionId?: string;
    allowed: boolean;
    by: { subject: string; via: string };
    reason: string;
    /** RFC 3339, milliseconds, UTC. */
    resolvedAt: string;
  };
}

/** A turn's boundary: its start, or its end with why it ended and what it cost. */
/** A session's state, by its name in docs/sessions.md (`unknown`: a log older than summaries). */
export type SessionStateView = "requires_action" | "running" | "failed" | "idle" | "ended" | "unknown";

/** A session as a fleet view lists it: where it is, and what waits on a person. */
export interface SessionRowView {
  sessionId: string;
  title: string;
  cwd: string;
  state: SessionStateView;
  /** What it does now or did last, on one line. */
  activity: string;
  /** Prompts waiting. */
  pendingCount: number;
  /** The oldest prompt waiting. */
  prompt?: {
    requestId: string;
    title: string;
    options: PermissionOptionView[];
    /** Unix milliseconds. */
    requestedAtMs: number;
  };
  /** Whether the caller's token may answer its prompts (the `approve` right). */
  canAnswer: boolean;
  /** Unix milliseconds. */
  updatedAtMs: number;
}

/** The harness closed the session (`SessionEnded`). */
export interface EndedView {
  /** Why, in the harness's words; empty when not said. */
  reason: string;
}

export interface TurnView {
  turnId: string;
  finished: boolean;
  stopReason?: string;
  usage?: { inputTokens: number; outputTokens: number };
}
