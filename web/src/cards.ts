// The card rendering the viewer and the MCP App's view share: every VIEW update drawn into the
// DOM (cards, messages, permission prompts, turn boundaries), and `SessionView`, which applies a
// session's updates in order — a card replacing its call's, appends growing its output or input,
// a subagent's items in a collapsible group inside its parent's card. Tool output is text, never
// markup: it goes in as text nodes, links only for http(s) and mailto URLs.

import {
  CallStatus, MessageRole, MessageStatus, PermissionOptionKind, StopReason,
  type CardSnapshot, type ContentBlock, type FileDiff, type MessageSnapshot, type PermissionSnapshot,
  type RenderedUpdate, type ToolCallView, type ToolResultView, type TurnUpdate,
} from "@toolview/client";
import { consoleBody, markdown } from "./markdown";

export type Child = Node | string | null | undefined | false;

/** A tiny element builder: el("div", {class: "x"}, child, …). */
export function el(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c) e.append(c);
  return e;
}

/** A link only for http:, https: and mailto: URLs (tool output is untrusted: a
 *  `javascript:` URL must never become a live link); anything else is plain text. */
function link(url: string, label: string): HTMLElement {
  let scheme = "";
  try {
    scheme = new URL(url).protocol;
  } catch {
    // Not an absolute URL: shown as text.
  }
  if (scheme === "http:" || scheme === "https:" || scheme === "mailto:") {
    return el("a", { href: url, rel: "noopener noreferrer nofollow", target: "_blank" }, label);
  }
  return el("span", { class: "url" }, label === url ? url : `${label} <${url}>`);
}

function texts(content: ContentBlock[]): Child[] {
  return content.map((b) => {
    switch (b.block.case) {
      case "text": {
        // A presenter's console block is output; any other text is untrusted text, as is.
        const output = consoleBody(b.block.value.text);
        return output === undefined ? el("pre", { class: "text" }, b.block.value.text) : el("pre", { class: "output console" }, output);
      }
      case "reasoning":
        return null;
      case "image":
        return el("div", { class: "muted" }, `[image ${b.block.value.uri || b.block.value.mimeType}]`);
      case "resourceLink":
        return link(b.block.value.uri, b.block.value.name || b.block.value.uri);
      default:
        return null;
    }
  });
}

/** Lines of a line diff (LCS), as [prefix, text]. */
function lineDiff(oldText: string | undefined, newText: string): [string, string][] {
  const a = oldText ? oldText.split("\n") : [];
  const b = newText ? newText.split("\n") : [];
  const n = a.length, m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: [string, string][] = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { out.push([" ", a[i]]); i++; j++; }
    else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) out.push(["-", a[i++]]);
    else out.push(["+", b[j++]]);
  }
  return out;
}

function diffs(list: FileDiff[]): HTMLElement {
  return el("div", { class: "diffs" }, ...list.map((d) =>
    el("div", { class: "file" },
      el("div", { class: "path" }, d.oldText === undefined ? `${d.path} (new)` : d.path),
      el("pre", { class: "diff" }, ...lineDiff(d.oldText, d.newText).map(([p, t]) =>
        el("span", { class: p === "+" ? "add" : p === "-" ? "del" : "ctx" }, `${p} ${t}\n`))))));
}

function exitPill(result: ToolResultView | undefined): Child {
  if (result?.card.case !== "terminal") return null;
  const exit = result.card.value.exit;
  if (exit.case === "exitCode")
    return el("span", { class: `pill ${exit.value === 0 ? "ok" : "bad"}`, "data-exit": String(exit.value) }, `exit ${exit.value}`);
  if (exit.case === "signal") return el("span", { class: "pill bad", "data-exit": exit.value }, exit.value);
  return null;
}

function callBody(call: ToolCallView | undefined, card: CardSnapshot): Child[] {
  switch (call?.card.case) {
    case "terminal": {
      const t = call.card.value;
      const r = card.result?.card.case === "terminal" ? card.result.card.value : undefined;
      return [
        t.description && el("div", { class: "muted" }, t.description),
        el("div", { class: "terminal" },
          el("div", { class: "cmd" }, `$ ${t.title}`),
          t.cwd && el("div", { class: "cwd" }, t.cwd),
          el("pre", { class: "output" }, r?.output ?? card.streamed)),
      ];
    }
    case "diff":
      return card.result ? [] : [diffs(call.card.value.diffs)];
    case "generic": {
      const g = call.card.value;
      // A pending call shows its input as the model writes it (text, never markup).
      return card.result ? [] : [...texts(g.content), card.input && el("pre", { class: "input" }, card.input),
        card.streamed && el("pre", { class: "output" }, card.streamed)];
    }
    default:
      return card.streamed ? [el("pre", { class: "output" }, card.streamed)] : [];
  }
}

function resultBody(result: ToolResultView | undefined): Child[] {
  switch (result?.card.case) {
    case "generic":
      return texts(result.card.value.content);
    case "diff":
      return [diffs(result.card.value.diffs)];
    case "read": {
      const r = result.card.value;
      return [el("div", { class: "path" }, r.path), el("pre", { class: "read" }, ...r.lines.map((l) =>
        el("span", {}, el("span", { class: "ln" }, String(l.number)), ` ${l.text}\n`)))];
    }
    case "search": {
      const s = result.card.value;
      const note = s.truncated ? el("div", { class: "muted" }, `showing part of ${s.total}`) : null;
      if (s.shape.case === "matches")
        return [...s.shape.value.files.map((f) => el("div", { class: "file" }, el("div", { class: "path" }, f.path),
          el("pre", { class: "read" }, ...f.matches.map((m) => el("span", {}, el("span", { class: "ln" }, String(m.lineNumber)), ` ${m.line}\n`))))), note];
      if (s.shape.case === "paths") return [el("ul", {}, ...s.shape.value.paths.map((p) => el("li", {}, p))), note];
      return [];
    }
    case "web": {
      const w = result.card.value;
      if (w.kind.case === "fetch")
        return [el("div", {}, `Fetched ${w.kind.value.url} `, el("span", { class: "pill ok" }, `HTTP ${w.kind.value.statusCode}`))];
      if (w.kind.case === "search")
        return [w.kind.value.answer && el("p", {}, w.kind.value.answer),
          el("ul", {}, ...w.kind.value.sources.map((s) => el("li", {}, link(s.url, s.title ?? s.url), s.snippet ? ` — ${s.snippet}` : "")))];
      return [];
    }
    default:
      return [];
  }
}

const STATUS: Record<number, [string, string]> = {
  [CallStatus.PENDING]: ["pending", "Writing input"],
  [CallStatus.IN_PROGRESS]: ["running", "In progress"],
  [CallStatus.COMPLETED]: ["completed", "Completed"],
  [CallStatus.FAILED]: ["failed", "Failed"],
};

const ROLE: Record<number, [string, string]> = {
  [MessageRole.USER]: ["user", "User"],
  [MessageRole.ASSISTANT]: ["assistant", "Assistant"],
  [MessageRole.REASONING]: ["reasoning", "Reasoning"],
};

/** A message's text: an answer's or reasoning's as sanitized Markdown, a user's as typed (a text
 *  node either way where it is text: never markup). */
export function messageText(role: MessageRole, text: string): HTMLElement {
  return role === MessageRole.USER ? el("div", { class: "text" }, text) : el("div", { class: "text md" }, ...markdown(text));
}

/** A message item: its speaker and its text. */
export function renderMessage(m: MessageSnapshot): HTMLElement {
  const [cls, label] = ROLE[m.role] ?? ["assistant", "?"];
  const streaming = m.status === MessageStatus.STREAMING;
  return el("section", { class: `message ${cls}`, "data-message": m.messageId, "data-role": cls, "data-status": streaming ? "streaming" : "complete" },
    el("header", {}, el("span", { class: "speaker" }, label), streaming && el("span", { class: "muted" }, "…")),
    messageText(m.role, m.text));
}

const ALLOWS = new Set([PermissionOptionKind.ALLOW_ONCE, PermissionOptionKind.ALLOW_ALWAYS]);

/** A permission request: its prompt and, while it waits, its options as buttons (an answer is a
 *  POST to /permissions/…, and the server says whether this token may answer); then what was
 *  decided, by whom and when. Every text is a text node. */
export function renderPermission(p: PermissionSnapshot, answer?: (optionId: string, note: HTMLElement) => void): HTMLElement {
  const r = p.request!;
  const res = p.resolution;
  const name = (id: string) => r.options.find((o) => o.optionId === id)?.name ?? id;
  const kind = (id: string) => r.options.find((o) => o.optionId === id)?.kind;
  let state = "pending";
  let outcome: Child = null;
  if (res) {
    const at = new Date(Number(res.resolvedAtUnixMs)).toISOString();
    const who = res.resolvedBy?.subject || "someone";
    const by = res.resolvedBy?.via ? `${who} via ${res.resolvedBy.via}` : who;
    switch (res.outcome.case) {
      case "selectedOptionId":
        state = ALLOWS.has(kind(res.outcome.value)!) ? "allowed" : "rejected";
        outcome = `${name(res.outcome.value)} — ${by} at ${at}`;
        break;
      case "expired":
        state = "expired";
        outcome = `nobody answered: ${name(res.outcome.value.optionId)} at ${at}`;
        break;
      default:
        state = "withdrawn";
        outcome = `withdrawn at ${at}`;
    }
  }
  const note = el("div", { class: "muted note" });
  // Without a way to answer (a host view), the prompt shows its options as text.
  const buttons = res ? null : !answer ? el("div", { class: "muted options" }, r.options.map((o) => o.name).join(" · ")) : el("div", { class: "options" }, ...r.options.map((o) => {
    const b = el("button", { type: "button", "data-option": o.optionId, class: ALLOWS.has(o.kind) ? "allow" : "reject" }, o.name);
    b.addEventListener("click", () => answer(o.optionId, note));
    return b;
  }));
  const expires = new Date(Number(r.expiresAtUnixMs)).toISOString();
  return el("section", { class: `permission ${state}`, "data-request": r.requestId, "data-state": state, "data-call": r.callId },
    el("header", {}, el("span", { class: "speaker" }, res ? "Permission" : "Awaiting approval"), el("span", { class: "title" }, r.title)),
    r.description && el("div", { class: "text" }, r.description),
    buttons,
    res ? el("div", { class: "outcome" }, outcome) : el("div", { class: "muted" }, `expires ${expires}, then ${name(r.expiryOptionId)}`),
    res?.reason ? el("div", { class: "muted reason" }, res.reason) : null,
    note);
}

/** A turn boundary: a rule with the turn's id, and how it ended. */
export function renderTurn(t: TurnUpdate): HTMLElement {
  let words = `turn ${t.turnId}`;
  if (t.finished) {
    const reason = StopReason[t.stopReason]?.toLowerCase() ?? "end_turn";
    words += ` ended (${t.stopReason === StopReason.UNSPECIFIED ? "end_turn" : reason})`;
    const u = t.usage;
    if (u && (u.inputTokens || u.outputTokens)) words += ` · ${u.inputTokens} in, ${u.outputTokens} out tokens`;
  }
  return el("div", { class: "turn", "data-turn": t.turnId, "data-finished": String(t.finished) }, words);
}

export function render(card: CardSnapshot): HTMLElement {
  const call = card.call;
  const kind = card.result?.card.case ?? call?.card.case ?? "generic";
  const title = card.result?.card.value?.title ?? call?.card.value?.title ?? card.callId;
  const exit = card.result?.card.case === "terminal" ? card.result.card.value.exit : undefined;
  const unclean = exit?.case === "signal" || (exit?.case === "exitCode" && exit.value !== 0);
  // A command that exited unclean reads as failed, as its red exit pill does.
  const status = unclean && card.status === CallStatus.COMPLETED ? CallStatus.FAILED : card.status;
  const [cls, label] = STATUS[status] ?? ["running", "?"];
  return el("section", { class: `card ${cls}${unclean ? " unclean" : ""}`, "data-call": card.callId, "data-card": kind, "data-status": cls },
    el("header", {},
      el("span", { class: "tool" }, card.toolName || "orphan"),
      el("span", { class: "title" }, title),
      exitPill(card.result),
      el("span", { class: `pill status ${cls}` }, label)),
    ...callBody(call, card),
    ...resultBody(card.result),
    // An MCP App the result carries: named, as text (only an app host can show it).
    card.mcpApp && el("div", { class: "muted app", "data-app": card.mcpApp.resourceUri }, `app: ${card.mcpApp.resourceUri}`));
}

/** The sessions the token may see, a page at a time, each a link to its cards. */

/** How a permission prompt's option is answered: `(requestId) => (optionId, note) => …`. */
export type Answerer = (requestId: string) => (optionId: string, note: HTMLElement) => void;

/** One session's items in `cards`, as its VIEW updates come. */
export class SessionView {
  private readonly byCall = new Map<string, { card: CardSnapshot; el: HTMLElement }>();
  private readonly byMessage = new Map<string, { message: MessageSnapshot; el: HTMLElement }>();
  private readonly byPermission = new Map<string, HTMLElement>();
  // A subagent's calls and messages: a collapsible group inside the card of the call they run
  // under, kept across that card's re-renders; its summary counts the children's states.
  private readonly groups = new Map<string, HTMLDetailsElement>();

  /** `answer`: how a prompt's buttons answer; without it, prompts show their options as text. */
  constructor(
    private readonly cards: HTMLElement,
    private readonly header: HTMLElement,
    private readonly session: string,
    private readonly answer?: Answerer,
  ) {}

  /** Forgets everything shown: the log was replaced, its updates follow from the beginning. */
  reset(): void {
    this.byCall.clear();
    this.byMessage.clear();
    this.byPermission.clear();
    this.groups.clear();
    this.cards.replaceChildren();
  }

  private group(parentId: string): HTMLElement | undefined {
    const parent = this.byCall.get(parentId);
    if (!parent) return undefined;
    let details = this.groups.get(parentId);
    if (!details) {
      details = el("details", { class: "children", open: "" }, el("summary", {}, "subagent")) as HTMLDetailsElement;
      this.groups.set(parentId, details);
      parent.el.append(details);
    }
    return details;
  }

  private summarize(parentId: string): void {
    const details = this.groups.get(parentId);
    if (!details) return;
    const counts = { running: 0, done: 0, failed: 0 };
    for (const c of this.byCall.values()) {
      if (c.card.parentCallId !== parentId) continue;
      if (c.card.status === CallStatus.COMPLETED) counts.done += 1;
      else if (c.card.status === CallStatus.FAILED) counts.failed += 1;
      else counts.running += 1;
    }
    const words = Object.entries(counts).filter(([, n]) => n > 0).map(([what, n]) => `${n} ${what}`);
    details.querySelector("summary")!.textContent = `subagent: ${words.join(", ") || "no calls yet"}`;
  }

  /** A new item goes in its parent's group when the parent is shown, else at the end. */
  private place(parentId: string, next: HTMLElement): void {
    (this.group(parentId) ?? this.cards).append(next);
  }

  /** Draws one update (updates of other targets are ignored). */
  apply(update: RenderedUpdate): void {
    document.body.dataset.offset = String(update.cursor?.offset ?? "");
    if (update.body.case !== "view") return;
    const view = update.body.value.update;
    if (view.case === "session") {
      this.header.textContent = `Session ${this.session}${view.value.cwd ? ` — ${view.value.cwd}` : ""}`;
    } else if (view.case === "card") {
      const next = render(view.value);
      const prev = this.byCall.get(view.value.callId);
      const children = this.groups.get(view.value.callId);
      if (children) next.append(children);
      if (prev) prev.el.replaceWith(next);
      else this.place(view.value.parentCallId, next);
      this.byCall.set(view.value.callId, { card: view.value, el: next });
      if (view.value.parentCallId) this.summarize(view.value.parentCallId);
    } else if (view.case === "message") {
      const next = renderMessage(view.value);
      const prev = this.byMessage.get(view.value.messageId);
      if (prev) prev.el.replaceWith(next);
      else this.place(view.value.parentCallId, next);
      this.byMessage.set(view.value.messageId, { message: view.value, el: next });
    } else if (view.case === "messageAppended") {
      const shown = this.byMessage.get(view.value.messageId);
      if (!shown) return;
      shown.message.text += view.value.text;
      // Markdown is read whole again (a later delta may close a fence); a user's text appends.
      const text = shown.el.querySelector(".text")!;
      if (shown.message.role === MessageRole.USER) text.append(view.value.text);
      else text.replaceWith(messageText(shown.message.role, shown.message.text));
    } else if (view.case === "permission") {
      const id = view.value.request?.requestId ?? "";
      const next = renderPermission(view.value, this.answer?.(id));
      const prev = this.byPermission.get(id);
      if (prev) prev.replaceWith(next);
      else this.cards.append(next);
      this.byPermission.set(id, next);
    } else if (view.case === "turn") {
      this.cards.append(renderTurn(view.value));
    } else if (view.case === "inputAppended" || view.case === "outputAppended") {
      const shown = this.byCall.get(view.value.callId);
      if (!shown) return;
      const input = view.case === "inputAppended";
      if (input) shown.card.input += view.value.text;
      else shown.card.streamed += view.value.text;
      // The text goes in as a text node: tool output is never markup.
      const pre = shown.el.querySelector(input ? "pre.input" : "pre.output");
      if (pre) {
        pre.append(view.value.text);
      } else {
        // The first piece of a card that showed none: render it once with its block.
        const next = render(shown.card);
        shown.el.replaceWith(next);
        shown.el = next;
      }
    }
  }
}
