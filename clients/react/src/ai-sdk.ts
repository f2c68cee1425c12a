// The AI SDK's `useChat`: toolview's UI message stream (`POST /ai-sdk`) carries a session as one
// assistant message whose parts are its items in order — `data-toolview-card` per call (a later
// one replaces it: same id), `data-toolview-permission` per prompt, `data-toolview-user` per
// prompt typed, `data-toolview-session` when the harness closes the session, `text` and
// `reasoning` for the model's words, and the calls again as tool parts.
// `ToolviewParts` draws a message's parts with this package's components; `ToolviewPart` one part.

import { createElement, Fragment, type ReactElement } from "react";
import { type Answer, ToolviewCard, ToolviewEnded, ToolviewMessage, ToolviewPermission } from "./react.js";
import type { CardView, PermissionView } from "./view.js";

/** A part of an AI SDK `UIMessage`, as far as this package reads it. */
export interface UIPart {
  type: string;
  id?: string;
  data?: unknown;
  text?: string;
  state?: string;
  toolCallId?: string;
  toolName?: string;
  title?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
}

/** The parts of one AI SDK message. */
export interface UIMessageLike {
  id: string;
  role: string;
  parts: readonly UIPart[];
}

const TOOL_STATUS: Record<string, CardView["status"]> = {
  "input-streaming": "pending",
  "output-available": "completed",
  "output-error": "failed",
  "output-denied": "failed",
};

const asText = (v: unknown): string => (typeof v === "string" ? v : (JSON.stringify(v, null, 2) ?? ""));

/** An AI SDK tool part (`tool-<name>` or `dynamic-tool`) as a generic card: its input and its
 *  output as text. For a host's own tools; toolview's calls come with cards of their own. */
export function toolPartCard(part: UIPart): CardView {
  const toolName = part.toolName ?? part.type.replace(/^tool-/, "");
  const done = part.state === "output-available" || part.state === "output-error" || part.state === "output-denied";
  const output = part.state === "output-error" ? (part.errorText ?? "") : asText(part.output);
  return {
    callId: part.toolCallId ?? "",
    toolName,
    status: TOOL_STATUS[part.state ?? ""] ?? "in_progress",
    call: {
      card: "generic",
      title: part.title ?? toolName,
      content: part.input === undefined ? undefined : [{ type: "text", text: asText(part.input) }],
    },
    result: done ? { card: "generic", content: [{ type: "text", text: output }] } : undefined,
    streamed: "",
  };
}

const isToolPart = (p: UIPart) => p.type === "dynamic-tool" || p.type.startsWith("tool-");

/** One part: a card, a prompt, a message, or a tool part as a generic card (`null` for the
 *  parts with nothing to show: steps, sources, transient data). */
export function ToolviewPart(props: { part: UIPart; id: string; onAnswer?: Answer }): ReactElement | null {
  const { part, id, onAnswer } = props;
  switch (part.type) {
    case "data-toolview-card":
      return createElement(ToolviewCard, { card: part.data as CardView });
    case "data-toolview-permission":
      return createElement(ToolviewPermission, { permission: part.data as PermissionView, onAnswer });
    case "data-toolview-session": {
      const data = part.data as { state?: string; reason?: string };
      return data.state === "ended" ? createElement(ToolviewEnded, { ended: { reason: data.reason ?? "" } }) : null;
    }
    case "data-toolview-user": {
      const data = part.data as { text?: string; complete?: boolean };
      const status = data.complete === false ? "streaming" : "complete";
      return createElement(ToolviewMessage, {
        message: { messageId: part.id ?? id, role: "user", text: data.text ?? "", status },
      });
    }
    case "text":
    case "reasoning": {
      const role = part.type === "text" ? "assistant" : "reasoning";
      const status = part.state === "streaming" ? "streaming" : "complete";
      return createElement(ToolviewMessage, { message: { messageId: id, role, text: part.text ?? "", status } });
    }
    default:
      return isToolPart(part) ? createElement(ToolviewCard, { card: toolPartCard(part) }) : null;
  }
}

/** A message's parts in order; a tool part whose call has a toolview card is left to the card. */
export function ToolviewParts(props: { message: UIMessageLike; onAnswer?: Answer }): ReactElement {
  const { message, onAnswer } = props;
  const carded = new Set(
    message.parts.filter((p) => p.type === "data-toolview-card").map((p) => (p.data as CardView).callId),
  );
  return createElement(
    Fragment,
    null,
    message.parts.map((part, i) => {
      if (isToolPart(part) && carded.has(part.toolCallId ?? "")) return null;
      const id = part.id ?? `${message.id}:${i}`;
      return createElement(ToolviewPart, { key: `${part.type}:${id}`, part, id, onAnswer });
    }),
  );
}
