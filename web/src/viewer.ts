// The toolview browser viewer: subscribes to one session (from the URL, `?session=ID`) over
// gRPC-Web and renders its VIEW card snapshots live. Each update replaces its call's card;
// messages (user, assistant, reasoning) and turn boundaries sit between the cards in order.
// Without a session, it lists the sessions the token may see (`ListSessions`).

import { Code } from "@connectrpc/connect";
// The client package: its generated messages, its resuming subscription and its bearer auth.
import {
  CallStatus, isReset, MessageRole, MessageStatus, PermissionOptionKind, StopReason, ToolviewError,
  type CardSnapshot, type Client, type ContentBlock, type FileDiff, type MessageSnapshot, type PermissionSnapshot,
  type ToolCallView, type ToolResultView, type TurnUpdate,
} from "@toolview/client";
import { connect } from "@toolview/client/web";
import { consoleBody, markdown } from "./markdown";

type Child = Node | string | null | undefined | false;

/** A tiny element builder: el("div", {class: "x"}, child, …). */
function el(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
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
function messageText(role: MessageRole, text: string): HTMLElement {
  return role === MessageRole.USER ? el("div", { class: "text" }, text) : el("div", { class: "text md" }, ...markdown(text));
}

/** A message item: its speaker and its text. */
function renderMessage(m: MessageSnapshot): HTMLElement {
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
function renderPermission(p: PermissionSnapshot, answer: (optionId: string, note: HTMLElement) => void): HTMLElement {
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
  const buttons = res ? null : el("div", { class: "options" }, ...r.options.map((o) => {
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
function renderTurn(t: TurnUpdate): HTMLElement {
  let words = `turn ${t.turnId}`;
  if (t.finished) {
    const reason = StopReason[t.stopReason]?.toLowerCase() ?? "end_turn";
    words += ` ended (${t.stopReason === StopReason.UNSPECIFIED ? "end_turn" : reason})`;
    const u = t.usage;
    if (u && (u.inputTokens || u.outputTokens)) words += ` · ${u.inputTokens} in, ${u.outputTokens} out tokens`;
  }
  return el("div", { class: "turn", "data-turn": t.turnId, "data-finished": String(t.finished) }, words);
}

function render(card: CardSnapshot): HTMLElement {
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
    ...resultBody(card.result));
}

/** The sessions the token may see, a page at a time, each a link to its cards. */
async function sessionList(client: Client, header: HTMLElement, cards: HTMLElement, state: HTMLElement) {
  header.textContent = "Sessions";
  const list = el("ul", { class: "sessions" });
  const more = el("button", { class: "more", type: "button" }, "More sessions");
  cards.replaceChildren(list, more);
  // The package fetches a page of 50 as the list is read; the button reads the next 50.
  const sessions = client.listSessions(50)[Symbol.asyncIterator]();
  let next = await sessions.next();
  const load = async () => {
    for (let shown = 0; shown < 50 && !next.done; shown++, next = await sessions.next()) {
      const s = next.value;
      // The token stays in the fragment, which is never sent to a server.
      const href = `?session=${encodeURIComponent(s.sessionId)}${location.hash}`;
      const updated = new Date(Number(s.updatedAt?.seconds ?? 0n) * 1000).toISOString().replace("T", " ").slice(0, 19);
      // The title is the first line of the session's first user message: text, never markup.
      list.append(el("li", { "data-session": s.sessionId },
        el("a", { href }, s.sessionId),
        s.title && el("span", { class: "session-title" }, ` ${s.title}`),
        el("span", { class: "muted" }, ` ${s.calls} calls · ${s.headOffset} events · updated ${updated} UTC${s.cwd ? ` · ${s.cwd}` : ""}`)));
    }
    more.hidden = Boolean(next.done);
    state.textContent = list.children.length ? `${list.children.length} shown` : "no sessions yet";
  };
  more.addEventListener("click", () => {
    load().catch((e) => (state.textContent = `error: ${e}`));
  });
  await load();
}

async function main() {
  const params = new URLSearchParams(location.search);
  const session = params.get("session") ?? "";
  const header = document.getElementById("session")!;
  const cards = document.getElementById("cards")!;
  const state = document.getElementById("state")!;
  // A token comes in the URL fragment (`#token=…`), which browsers never send to a server or
  // put in a Referer; it goes out only as the `authorization` header of the gRPC-Web calls.
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  const client = connect(location.origin, { token: token ?? undefined });
  if (!session) {
    await sessionList(client, header, cards, state);
    return;
  }
  header.textContent = `Session ${session}`;
  const byCall = new Map<string, { card: CardSnapshot; el: HTMLElement }>();
  const byMessage = new Map<string, { message: MessageSnapshot; el: HTMLElement }>();
  const byPermission = new Map<string, HTMLElement>();
  // A subagent's calls and messages: a collapsible group inside the card of the call they run
  // under, kept across that card's re-renders; its summary counts the children's states.
  const groups = new Map<string, HTMLDetailsElement>();
  const group = (parentId: string): HTMLElement | undefined => {
    const parent = byCall.get(parentId);
    if (!parent) return undefined;
    let details = groups.get(parentId);
    if (!details) {
      details = el("details", { class: "children", open: "" }, el("summary", {}, "subagent")) as HTMLDetailsElement;
      groups.set(parentId, details);
      parent.el.append(details);
    }
    return details;
  };
  const summarize = (parentId: string) => {
    const details = groups.get(parentId);
    if (!details) return;
    const counts = { running: 0, done: 0, failed: 0 };
    for (const c of byCall.values()) {
      if (c.card.parentCallId !== parentId) continue;
      if (c.card.status === CallStatus.COMPLETED) counts.done += 1;
      else if (c.card.status === CallStatus.FAILED) counts.failed += 1;
      else counts.running += 1;
    }
    const words = Object.entries(counts).filter(([, n]) => n > 0).map(([what, n]) => `${n} ${what}`);
    details.querySelector("summary")!.textContent = `subagent: ${words.join(", ") || "no calls yet"}`;
  };
  // A new item goes in its parent's group when the parent is shown, else at the top.
  const place = (parentId: string, next: HTMLElement) => (group(parentId) ?? cards).append(next);
  // An answer to a permission request: the decision itself arrives as an update to everyone.
  const answer = (requestId: string) => (optionId: string, note: HTMLElement) => {
    const path = `/permissions/${session.split("/").map(encodeURIComponent).join("/")}/${encodeURIComponent(requestId)}`;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    fetch(path, { method: "POST", headers, body: JSON.stringify({ optionId, via: "viewer" }) })
      .then(async (r) => {
        if (r.status === 403) note.textContent = "this token may not answer (it needs the approve right)";
        else if (!r.ok && r.status !== 409 && r.status !== 410) note.textContent = `not answered: ${(await r.json()).error ?? r.status}`;
      })
      .catch((e) => (note.textContent = `not answered: ${e}`));
  };
  state.textContent = "connecting";
  try {
    await client.getSession(session);
  } catch (e) {
    if (e instanceof ToolviewError && e.code === Code.NotFound) {
      state.textContent = "waiting for its first event";
    } else {
      throw e;
    }
  }
  // The package's subscription follows the session again after its last cursor when the server
  // goes away (a restart, a dropped connection): nothing is lost or shown twice.
  const subscription = await client.subscribe(session, {
    target: "view",
    // Live output arrives as appends to the card shown before, not a snapshot per chunk.
    capabilities: { terminal: true, diff: true, read: true, search: true, web: true, outputAppends: true, reasoning: true },
    start: "beginning",
  });
  for await (const item of subscription) {
    state.textContent = "live";
    if (isReset(item)) {
      byCall.clear();
      byMessage.clear();
      byPermission.clear();
      groups.clear();
      cards.replaceChildren();
      continue;
    }
    const update = item;
    document.body.dataset.offset = String(update.cursor?.offset ?? "");
    if (update.body.case !== "view") continue;
    const view = update.body.value.update;
    if (view.case === "session") {
      header.textContent = `Session ${session}${view.value.cwd ? ` — ${view.value.cwd}` : ""}`;
    } else if (view.case === "card") {
      const next = render(view.value);
      const prev = byCall.get(view.value.callId);
      const children = groups.get(view.value.callId);
      if (children) next.append(children);
      if (prev) prev.el.replaceWith(next);
      else place(view.value.parentCallId, next);
      byCall.set(view.value.callId, { card: view.value, el: next });
      if (view.value.parentCallId) summarize(view.value.parentCallId);
    } else if (view.case === "message") {
      const next = renderMessage(view.value);
      const prev = byMessage.get(view.value.messageId);
      if (prev) prev.el.replaceWith(next);
      else place(view.value.parentCallId, next);
      byMessage.set(view.value.messageId, { message: view.value, el: next });
    } else if (view.case === "messageAppended") {
      const shown = byMessage.get(view.value.messageId);
      if (!shown) continue;
      shown.message.text += view.value.text;
      // Markdown is read whole again (a later delta may close a fence); a user's text appends.
      const text = shown.el.querySelector(".text")!;
      if (shown.message.role === MessageRole.USER) text.append(view.value.text);
      else text.replaceWith(messageText(shown.message.role, shown.message.text));
    } else if (view.case === "permission") {
      const id = view.value.request?.requestId ?? "";
      const next = renderPermission(view.value, answer(id));
      const prev = byPermission.get(id);
      if (prev) prev.replaceWith(next);
      else cards.append(next);
      byPermission.set(id, next);
    } else if (view.case === "turn") {
      cards.append(renderTurn(view.value));
    } else if (view.case === "inputAppended") {
      const shown = byCall.get(view.value.callId);
      if (!shown) continue;
      shown.card.input += view.value.text;
      const pre = shown.el.querySelector("pre.input");
      if (pre) {
        pre.append(view.value.text);
      } else {
        const next = render(shown.card);
        shown.el.replaceWith(next);
        shown.el = next;
      }
    } else if (view.case === "outputAppended") {
      const shown = byCall.get(view.value.callId);
      if (!shown) continue;
      shown.card.streamed += view.value.text;
      // The text goes in as a text node: tool output is never markup.
      const pre = shown.el.querySelector("pre.output");
      if (pre) {
        pre.append(view.value.text);
      } else {
        // The first output of a card that showed none: render it once with its output block.
        const next = render(shown.card);
        shown.el.replaceWith(next);
        shown.el = next;
      }
    }
  }
  state.textContent = "ended";
}

main().catch((e) => {
  document.getElementById("state")!.textContent = `error: ${e}`;
});
