// The protobuf messages of a VIEW subscription (`@toolview/client`) as the VIEW JSON (`view.ts`):
// the one shape the cards are drawn from, whether they came over gRPC-Web, AG-UI or the AI SDK.
// The JSON follows the server's (`union.md`, "JSON form"): absent optionals omitted, `oldText`
// null, the arrays a presenter always sets kept when empty — the package's test checks it equals
// what the AI SDK target sends for the same session.

import {
  CallStatus,
  type CardSnapshot,
  type ContentBlock,
  DiffOp,
  type DiffRun as DiffRunPb,
  type FileDiff as FileDiffPb,
  type FileLocation as FileLocationPb,
  type GetSessionResponse,
  MessageRole,
  type MessageSnapshot,
  MessageStatus,
  PermissionOptionKind,
  type PermissionSnapshot,
  SessionState,
  StopReason,
  type ToolCallView as ToolCallPb,
  ToolKind,
  type ToolResultView as ToolResultPb,
  type TurnUpdate,
} from "@toolview/client";
import { newer } from "./cards.js";
import type {
  CallStatusName,
  CardView,
  ContentBlockView,
  DiffRun,
  FileDiff,
  FileLocation,
  MessageView,
  PermissionOptionView,
  PermissionView,
  RoleName,
  SessionRowView,
  SessionStateView,
  ToolCallView,
  ToolResultView,
  TurnView,
} from "./view.js";

/** `google.protobuf.Value` as the JSON it holds (the message, structurally). */
interface ValueLike {
  kind:
    | { case: "nullValue"; value: unknown }
    | { case: "numberValue"; value: number }
    | { case: "stringValue"; value: string }
    | { case: "boolValue"; value: boolean }
    | { case: "structValue"; value: { fields: Record<string, ValueLike> } }
    | { case: "listValue"; value: { values: ValueLike[] } }
    | { case: undefined; value?: undefined };
}

function json(v: ValueLike): unknown {
  switch (v.kind.case) {
    case "numberValue":
    case "stringValue":
    case "boolValue":
      return v.kind.value;
    case "structValue":
      return Object.fromEntries(Object.entries(v.kind.value.fields).map(([k, f]) => [k, json(f)]));
    case "listValue":
      return v.kind.value.values.map(json);
    case "nullValue":
    case undefined:
      return null;
  }
}

/** `{...o}` without its undefined members (the JSON omits absent optionals). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** An array the presenter may leave unset: omitted when empty. */
function some<T>(list: readonly T[]): T[] | undefined {
  return list.length ? [...list] : undefined;
}

function blocks(list: readonly ContentBlock[]): ContentBlockView[] {
  return list.flatMap((b): ContentBlockView[] => {
    switch (b.block.case) {
      case "text":
        return [{ type: "text", text: b.block.value.text }];
      case "reasoning":
        return [{ type: "reasoning", text: b.block.value.text }];
      case "image": {
        const { mimeType, data, uri } = b.block.value;
        // Base64, as the JSON carries image bytes.
        const base64 = data.length ? btoa(Array.from(data, (c) => String.fromCharCode(c)).join("")) : undefined;
        return [defined({ type: "image" as const, mimeType, data: base64, uri })];
      }
      case "resourceLink": {
        const { uri, name, mimeType } = b.block.value;
        return [defined({ type: "resource_link" as const, uri, name, mimeType })];
      }
      case undefined:
        return [];
      default:
        return newer(b.block) ?? [];
    }
  });
}

const locations = (list: readonly FileLocationPb[]): FileLocation[] | undefined =>
  some(list.map((l) => defined({ path: l.path, line: l.line })));

const DIFF_OPS: Record<DiffOp, DiffRun["op"] | undefined> = {
  [DiffOp.UNSPECIFIED]: undefined,
  [DiffOp.CONTEXT]: "context",
  [DiffOp.REMOVED]: "removed",
  [DiffOp.ADDED]: "added",
};

const runs = (list: readonly DiffRunPb[]): DiffRun[] | undefined =>
  some(list.flatMap((r) => (DIFF_OPS[r.op] ? [{ op: DIFF_OPS[r.op] as DiffRun["op"], lines: r.lines }] : [])));

const diffs = (list: readonly FileDiffPb[]): FileDiff[] =>
  list.map((d) => defined({ path: d.path, oldText: d.oldText ?? null, newText: d.newText, runs: runs(d.runs) }));

/** A call view as JSON (undefined for an unset one). */
export function callFromProto(call: ToolCallPb | undefined): ToolCallView | undefined {
  switch (call?.card.case) {
    case "generic": {
      const g = call.card.value;
      return defined({
        card: "generic" as const,
        title: g.title,
        kind: g.kind === ToolKind.UNSPECIFIED ? undefined : ToolKind[g.kind]?.toLowerCase(),
        rawInput: g.rawInput ? json(g.rawInput as unknown as ValueLike) : undefined,
        content: some(blocks(g.content)),
        locations: locations(g.locations),
      });
    }
    case "terminal": {
      const t = call.card.value;
      return defined({ card: "terminal" as const, title: t.title, description: t.description, cwd: t.cwd });
    }
    case "diff": {
      const d = call.card.value;
      return defined({
        card: "diff" as const,
        title: d.title,
        diffs: diffs(d.diffs),
        locations: locations(d.locations),
      });
    }
    case undefined:
      return undefined;
  }
}

/** A result view as JSON (undefined for an unset one). */
export function resultFromProto(result: ToolResultPb | undefined): ToolResultView | undefined {
  const r = result?.card;
  switch (r?.case) {
    case "generic":
      return defined({ card: "generic" as const, title: r.value.title, content: some(blocks(r.value.content)) });
    case "terminal": {
      const { title, output, exit } = r.value;
      return defined({
        card: "terminal" as const,
        title,
        output,
        exitCode: exit.case === "exitCode" ? exit.value : undefined,
        signal: exit.case === "signal" ? exit.value : undefined,
      });
    }
    case "diff":
      return defined({
        card: "diff" as const,
        title: r.value.title,
        diffs: diffs(r.value.diffs),
        locations: locations(r.value.locations),
      });
    case "search": {
      const { title, truncated, shape } = r.value;
      const total = Number(r.value.total);
      if (shape.case === "paths")
        return defined({
          card: "search" as const,
          title,
          shape: "paths" as const,
          paths: [...shape.value.paths],
          truncated,
          total,
        });
      const files = (shape.value?.files ?? []).map((f) => ({
        path: f.path,
        matches: f.matches.map((m) => ({ lineNumber: m.lineNumber, line: m.line })),
      }));
      return defined({ card: "search" as const, title, shape: "matches" as const, files, truncated, total });
    }
    case "read": {
      const { title, path, offset, lines, totalLines, lang, content } = r.value;
      const numbered = lines.map((l) => ({ number: l.number, text: l.text }));
      return defined({
        card: "read" as const,
        title,
        path,
        offset,
        lines: numbered,
        totalLines,
        lang,
        content: some(blocks(content)),
      });
    }
    case "web": {
      const { title, kind } = r.value;
      if (kind.case === "fetch") {
        const { url, statusCode, truncated } = kind.value;
        return defined({ card: "web" as const, title, kind: "fetch" as const, url, statusCode, truncated });
      }
      const sources = (kind.value?.sources ?? []).map((s) =>
        defined({ url: s.url, title: s.title, snippet: s.snippet, publishedAt: s.publishedAt }),
      );
      return defined({
        card: "web" as const,
        title,
        kind: "search" as const,
        sources,
        answer: kind.value?.answer,
        truncated: kind.value?.truncated ?? false,
      });
    }
    case undefined:
      return undefined;
  }
}

const STATUS: Record<CallStatus, CallStatusName> = {
  [CallStatus.UNSPECIFIED]: "in_progress",
  [CallStatus.PENDING]: "pending",
  [CallStatus.IN_PROGRESS]: "in_progress",
  [CallStatus.COMPLETED]: "completed",
  [CallStatus.FAILED]: "failed",
};

/** A card snapshot as the VIEW JSON. */
export function cardFromProto(card: CardSnapshot): CardView {
  const app = card.mcpApp;
  return defined({
    callId: card.callId,
    toolName: card.toolName,
    status: STATUS[card.status] ?? "in_progress",
    call: callFromProto(card.call),
    result: resultFromProto(card.result),
    streamed: card.streamed,
    // Empty is absent for these (proto3 strings and numbers have no unset).
    input: card.input || undefined,
    parentCallId: card.parentCallId || undefined,
    depth: card.depth || undefined,
    children: card.children && {
      running: card.children.running,
      done: card.children.done,
      failed: card.children.failed,
      latest: card.children.latest,
    },
    mcpApp: app && mcpApp(app),
  });
}

function mcpApp(app: NonNullable<CardSnapshot["mcpApp"]>): CardView["mcpApp"] {
  let structuredContent: unknown;
  try {
    structuredContent = app.structuredContentJson ? JSON.parse(app.structuredContentJson) : undefined;
  } catch {
    // Display input never fails: a bad document is left out.
  }
  return defined({
    resourceUri: app.resourceUri,
    serverId: app.serverId || undefined,
    serverHash: app.serverHash || undefined,
    structuredContent,
  });
}

const ROLE: Record<MessageRole, RoleName> = {
  [MessageRole.UNSPECIFIED]: "assistant",
  [MessageRole.USER]: "user",
  [MessageRole.ASSISTANT]: "assistant",
  [MessageRole.REASONING]: "reasoning",
};

/** A message snapshot as a message item. */
export function messageFromProto(m: MessageSnapshot): MessageView {
  return defined({
    messageId: m.messageId,
    role: ROLE[m.role] ?? "assistant",
    text: m.text,
    status: m.status === MessageStatus.STREAMING ? "streaming" : "complete",
    parentCallId: m.parentCallId || undefined,
  });
}

const OPTION: Record<PermissionOptionKind, PermissionOptionView["kind"]> = {
  [PermissionOptionKind.UNSPECIFIED]: "reject_once",
  [PermissionOptionKind.ALLOW_ONCE]: "allow_once",
  [PermissionOptionKind.ALLOW_ALWAYS]: "allow_always",
  [PermissionOptionKind.REJECT_ONCE]: "reject_once",
  [PermissionOptionKind.REJECT_ALWAYS]: "reject_always",
};

const iso = (ms: bigint | number) => new Date(Number(ms)).toISOString();

/** A permission snapshot as the permission JSON. */
export function permissionFromProto(p: PermissionSnapshot): PermissionView {
  const r = p.request;
  const options = (r?.options ?? []).map((o) => ({
    optionId: o.optionId,
    name: o.name,
    kind: OPTION[o.kind] ?? "reject_once",
  }));
  const res = p.resolution;
  const out = res?.outcome;
  const optionId =
    out?.case === "selectedOptionId" ? out.value : out?.case === "expired" ? out.value.optionId : undefined;
  const kind = options.find((o) => o.optionId === optionId)?.kind;
  return defined({
    requestId: r?.requestId ?? "",
    callId: r?.callId || undefined,
    title: r?.title ?? "",
    description: r?.description ?? "",
    state: !res
      ? "pending"
      : out?.case === "selectedOptionId"
        ? "selected"
        : out?.case === "expired"
          ? "expired"
          : "withdrawn",
    options,
    expiryOptionId: r?.expiryOptionId ?? "",
    expiresAt: iso(r?.expiresAtUnixMs ?? 0n),
    expiresAtMs: Number(r?.expiresAtUnixMs ?? 0n),
    resolution: res && {
      ...(optionId === undefined ? {} : { optionId }),
      allowed: kind === "allow_once" || kind === "allow_always",
      by: { subject: res.resolvedBy?.subject ?? "", via: res.resolvedBy?.via ?? "" },
      reason: res.reason,
      resolvedAt: iso(res.resolvedAtUnixMs),
    },
  }) as PermissionView;
}

/** A turn update as a turn boundary. */
export function turnFromProto(t: TurnUpdate): TurnView {
  const reason = t.stopReason === StopReason.UNSPECIFIED ? undefined : StopReason[t.stopReason]?.toLowerCase();
  return defined({
    turnId: t.turnId,
    finished: t.finished,
    stopReason: t.finished ? (reason ?? "end_turn") : undefined,
    usage: t.usage && { inputTokens: Number(t.usage.inputTokens), outputTokens: Number(t.usage.outputTokens) },
  });
}

const STATE: Record<SessionState, SessionStateView> = {
  [SessionState.UNSPECIFIED]: "unknown",
  [SessionState.REQUIRES_ACTION]: "requires_action",
  [SessionState.RUNNING]: "running",
  [SessionState.FAILED]: "failed",
  [SessionState.IDLE]: "idle",
  [SessionState.ENDED]: "ended",
};

const ms = (t: { seconds: bigint; nanos: number } | undefined) =>
  t ? Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6) : 0;

/** A session of `ListSessions` or `WatchSessions` as a fleet view lists it. */
export function sessionRowFromProto(s: GetSessionResponse): SessionRowView {
  const summary = s.summary;
  const p = summary?.pending[0];
  return defined({
    sessionId: s.sessionId,
    title: s.title,
    cwd: s.cwd,
    state: STATE[summary?.state ?? SessionState.UNSPECIFIED] ?? "unknown",
    activity: summary?.activity ?? "",
    pendingCount: Number(summary?.pendingCount ?? 0n),
    prompt: p && {
      requestId: p.requestId,
      title: p.title,
      options: p.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: OPTION[o.kind] ?? "reject_once" })),
      requestedAtMs: ms(p.requestedAt),
    },
    canAnswer: s.rights.includes("approve"),
    updatedAtMs: ms(s.updatedAt),
  });
}
