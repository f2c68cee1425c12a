// Every VIEW item as an element tree (`node.ts`): a call's card (terminal with its live output and
// exit status, diff with its hunks, read with line numbers, search, web, generic), a message, a
// permission prompt, a turn boundary. The one drawing of toolview's cards: the viewer, the MCP
// App's view and the React components all render these trees. Tool output is text, never markup:
// it is a text child; links only for http(s) and mailto URLs.

import { consoleBody, markdown } from "./markdown.js";
import { button, type Child, h, type VNode } from "./node.js";
import type {
  CallStatusName,
  CardView,
  ContentBlockView,
  EndedView,
  FileDiff,
  MessageView,
  PermissionView,
  RoleName,
  SessionRowView,
  ToolCallView,
  ToolResultView,
  TurnView,
} from "./view.js";

/** A link only for http:, https: and mailto: URLs (tool output is untrusted: a `javascript:` URL
 *  must never become a live link); anything else is plain text. */
function link(url: string, label: string): VNode {
  let scheme = "";
  try {
    scheme = new URL(url).protocol;
  } catch {
    // Not an absolute URL: shown as text.
  }
  if (scheme === "http:" || scheme === "https:" || scheme === "mailto:") {
    return h("a", { href: url, rel: "noopener noreferrer nofollow", target: "_blank" }, label);
  }
  return h("span", { class: "url" }, label === url ? url : `${label} <${url}>`);
}

/** A kind from a newer server: compile-time exhaustive, shown as nothing at run time. */
export function newer(_: never): null {
  return null;
}

function texts(content: readonly ContentBlockView[] | undefined): Child[] {
  return (content ?? []).map((b) => {
    switch (b.type) {
      case "text": {
        // A presenter's console block is output; any other text is untrusted text, as is.
        const output = consoleBody(b.text);
        return output === undefined
          ? h("pre", { class: "text" }, b.text)
          : h("pre", { class: "output console" }, output);
      }
      case "reasoning":
        return null;
      case "image":
        return h("div", { class: "muted" }, `[image ${b.uri || b.mimeType}]`);
      case "resource_link":
        return link(b.uri, b.name || b.uri);
      default:
        return newer(b);
    }
  });
}

/** A diff's lines, as [prefix, text]: sliced from its two sides by the server's `runs` (the line
 *  diff every target draws), never diffed here. A diff without runs (not from a VIEW card) is
 *  drawn coarse: every old line removed, then every new line added. O(lines) either way. */
export function diffLines(d: FileDiff): [string, string][] {
  const a = d.oldText ? d.oldText.split("\n") : [];
  const b = d.newText ? d.newText.split("\n") : [];
  const runs = d.runs ?? [
    { op: "removed" as const, lines: a.length },
    { op: "added" as const, lines: b.length },
  ];
  const out: [string, string][] = [];
  let i = 0;
  let j = 0;
  // Each run takes at most what its side has left, so a count past the text costs nothing.
  for (const { op, lines } of runs) {
    const n = Math.min(lines, op === "removed" ? a.length - i : b.length - j);
    for (let k = 0; k < n; k++) {
      if (op === "removed") out.push(["-", a[i++]]);
      else if (op === "added") out.push(["+", b[j++]]);
      else {
        out.push([" ", b[j++]]);
        i++;
      }
    }
  }
  return out;
}

function diffs(list: readonly FileDiff[]): VNode {
  return h(
    "div",
    { class: "diffs" },
    ...list.map((d) =>
      h(
        "div",
        { class: "file" },
        h("div", { class: "path" }, d.oldText === null ? `${d.path} (new)` : d.path),
        h(
          "pre",
          { class: "diff", role: "group", "aria-label": `changes to ${d.path}` },
          ...diffLines(d).map(([p, t]) =>
            h("span", { class: p === "+" ? "add" : p === "-" ? "del" : "ctx" }, `${p} ${t}\n`),
          ),
        ),
      ),
    ),
  );
}

function exitPill(result: ToolResultView | undefined): Child {
  if (result?.card !== "terminal") return null;
  if (result.exitCode !== undefined)
    return h(
      "span",
      { class: `pill ${result.exitCode === 0 ? "ok" : "bad"}`, "data-exit": String(result.exitCode) },
      `exit ${result.exitCode}`,
    );
  if (result.signal !== undefined) return h("span", { class: "pill bad", "data-exit": result.signal }, result.signal);
  return null;
}

/** The live output so far: AG-UI's activity content adds its `chunks` after `streamed`. */
export function streamedOf(card: CardView): string {
  return card.chunks?.length ? card.streamed + card.chunks.join("") : card.streamed;
}

function callBody(call: ToolCallView | undefined, card: CardView): Child[] {
  const streamed = streamedOf(card);
  switch (call?.card) {
    case "terminal": {
      const output = card.result?.card === "terminal" ? card.result.output : undefined;
      return [
        call.description && h("div", { class: "muted" }, call.description),
        h(
          "div",
          { class: "terminal" },
          h("div", { class: "cmd" }, `$ ${call.title}`),
          call.cwd && h("div", { class: "cwd" }, call.cwd),
          h("pre", { class: "output", role: "log", "aria-label": "output" }, output ?? streamed),
        ),
      ];
    }
    case "diff":
      return card.result ? [] : [diffs(call.diffs)];
    case "generic":
      // A pending call shows its input as the model writes it (text, never markup).
      return card.result
        ? []
        : [
            ...texts(call.content),
            card.input && h("pre", { class: "input" }, card.input),
            streamed && h("pre", { class: "output" }, streamed),
          ];
    case undefined:
      return streamed ? [h("pre", { class: "output" }, streamed)] : [];
  }
}

function numbered(lines: readonly { number: number; text: string }[]): VNode {
  return h(
    "pre",
    { class: "read" },
    ...lines.map((l) => h("span", {}, h("span", { class: "ln" }, String(l.number)), ` ${l.text}\n`)),
  );
}

function resultBody(result: ToolResultView | undefined): Child[] {
  switch (result?.card) {
    case "generic":
      return texts(result.content);
    case "diff":
      return [diffs(result.diffs)];
    case "read":
      return [h("div", { class: "path" }, result.path), numbered(result.lines)];
    case "search": {
      const note = result.truncated ? h("div", { class: "muted" }, `showing part of ${result.total}`) : null;
      if (result.shape === "matches")
        return [
          ...result.files.map((f) =>
            h(
              "div",
              { class: "file" },
              h("div", { class: "path" }, f.path),
              numbered(f.matches.map((m) => ({ number: m.lineNumber, text: m.line }))),
            ),
          ),
          note,
        ];
      return [h("ul", {}, ...result.paths.map((p) => h("li", {}, p))), note];
    }
    case "web":
      if (result.kind === "fetch")
        return [h("div", {}, `Fetched ${result.url} `, h("span", { class: "pill ok" }, `HTTP ${result.statusCode}`))];
      return [
        result.answer && h("p", {}, result.answer),
        h(
          "ul",
          {},
          ...result.sources.map((s) => h("li", {}, link(s.url, s.title ?? s.url), s.snippet ? ` — ${s.snippet}` : "")),
        ),
      ];
    case "terminal":
    case undefined:
      return [];
  }
}

const STATUS: Record<CallStatusName, [string, string]> = {
  pending: ["pending", "Writing input"],
  in_progress: ["running", "In progress"],
  completed: ["completed", "Completed"],
  failed: ["failed", "Failed"],
};

/** A call's card: its tool, title, exit and status, its call body and its result body. */
export function cardTree(card: CardView): VNode {
  const call = card.call;
  const kind = card.result?.card ?? call?.card ?? "generic";
  const title = card.result?.title ?? call?.title ?? card.callId;
  const r = card.result?.card === "terminal" ? card.result : undefined;
  const unclean = r?.signal !== undefined || (r?.exitCode !== undefined && r.exitCode !== 0);
  // A command that exited unclean reads as failed, as its red exit pill does.
  const status = unclean && card.status === "completed" ? "failed" : card.status;
  const [cls, label] = STATUS[status] ?? STATUS.in_progress;
  return h(
    "section",
    {
      class: `card ${cls}${unclean ? " unclean" : ""}`,
      "data-call": card.callId,
      "data-card": kind,
      "data-status": cls,
      "aria-label": `${card.toolName || "orphan"}: ${title}`,
    },
    h(
      "header",
      {},
      h("span", { class: "tool" }, card.toolName || "orphan"),
      h("span", { class: "title" }, title),
      exitPill(card.result),
      h("span", { class: `pill status ${cls}`, role: "status" }, label),
    ),
    ...callBody(call, card),
    ...resultBody(card.result),
    // An MCP App the result carries: named, as text (only an app host can show it).
    card.mcpApp &&
      h("div", { class: "muted app", "data-app": card.mcpApp.resourceUri }, `app: ${card.mcpApp.resourceUri}`),
  );
}

const ROLE: Record<RoleName, string> = { user: "User", assistant: "Assistant", reasoning: "Reasoning" };

/** A message's text: an answer's or reasoning's as sanitized Markdown, a user's as typed. */
export function messageText(role: RoleName, text: string): VNode {
  return role === "user" ? h("div", { class: "text" }, text) : h("div", { class: "text md" }, ...markdown(text));
}

/** A message item: its speaker and its text. */
export function messageTree(m: MessageView): VNode {
  const role = ROLE[m.role] ? m.role : "assistant";
  const streaming = m.status === "streaming";
  return h(
    "section",
    {
      class: `message ${role}`,
      "data-message": m.messageId,
      "data-role": role,
      "data-status": streaming ? "streaming" : "complete",
    },
    h("header", {}, h("span", { class: "speaker" }, ROLE[role]), streaming && h("span", { class: "muted" }, "…")),
    messageText(role, m.text),
  );
}

/** A permission request: its prompt and, while it waits, its options as buttons (with `answer`;
 *  without one, as text); then what was decided, by whom and when. `note`: what became of the
 *  last answer, when it needs saying (refused, failed). */
export function permissionTree(p: PermissionView, answer?: (optionId: string) => void, note = ""): VNode {
  const option = (id: string | undefined) => p.options.find((o) => o.optionId === id);
  const name = (id: string | undefined) => option(id)?.name ?? id ?? "";
  const allows = (kind: string | undefined) => kind === "allow_once" || kind === "allow_always";
  const res = p.resolution;
  let state = "pending";
  let outcome = "";
  if (res) {
    const by = res.by.via ? `${res.by.subject || "someone"} via ${res.by.via}` : res.by.subject || "someone";
    if (p.state === "selected") {
      state = allows(option(res.optionId)?.kind) ? "allowed" : "rejected";
      outcome = `${name(res.optionId)} — ${by} at ${res.resolvedAt}`;
    } else if (p.state === "expired") {
      state = "expired";
      outcome = `nobody answered: ${name(res.optionId)} at ${res.resolvedAt}`;
    } else {
      state = "withdrawn";
      outcome = `withdrawn at ${res.resolvedAt}`;
    }
  }
  const buttons = res
    ? null
    : !answer
      ? h("div", { class: "muted options" }, p.options.map((o) => o.name).join(" · "))
      : h(
          "div",
          { class: "options", role: "group", "aria-label": "answer" },
          ...p.options.map((o) =>
            button({ "data-option": o.optionId, class: allows(o.kind) ? "allow" : "reject" }, o.name, () =>
              answer(o.optionId),
            ),
          ),
        );
  return h(
    "section",
    { class: `permission ${state}`, "data-request": p.requestId, "data-state": state, "data-call": p.callId ?? "" },
    h(
      "header",
      {},
      h("span", { class: "speaker" }, res ? "Permission" : "Awaiting approval"),
      h("span", { class: "title" }, p.title),
    ),
    p.description && h("div", { class: "text" }, p.description),
    buttons,
    res
      ? h("div", { class: "outcome" }, outcome)
      : h("div", { class: "muted" }, `expires ${p.expiresAt}, then ${name(p.expiryOptionId)}`),
    res?.reason ? h("div", { class: "muted reason" }, res.reason) : null,
    h("div", { class: "muted note", role: "status" }, note),
  );
}

/** A turn boundary: a rule with the turn's id, and how it ended. */
/** One session of a fleet view: a link to it (`href`), its title and state, then its oldest
 *  prompt with buttons (with `answer`, when the token may answer) and `note`, or what it does
 *  now. `ul.sessions.inbox > li` rows, each with `data-session` and `data-state`. */
export function sessionRowTree(
  row: SessionRowView,
  href: string,
  answer?: (requestId: string, optionId: string) => void,
  note = "",
): VNode {
  const prompt = row.prompt;
  const buttons =
    prompt && answer && row.canAnswer
      ? prompt.options.map((o) =>
          button({ "data-option": o.optionId }, o.name, () => answer(prompt.requestId, o.optionId)),
        )
      : [];
  const detail = prompt
    ? h(
        "div",
        { class: "prompt", "data-request": prompt.requestId },
        h("span", { class: "prompt-title" }, prompt.title),
        ...buttons,
        h("span", { class: "muted note" }, note),
      )
    : row.activity && h("div", { class: "muted activity" }, row.activity);
  return h(
    "li",
    { "data-session": row.sessionId, "data-state": row.state },
    h("a", { href }, row.sessionId),
    row.title && h("span", { class: "session-title" }, ` ${row.title}`),
    h("span", { class: `pill state ${row.state}` }, row.state.replace("_", " ")),
    detail,
  );
}

/** `session ended: <reason>` — the harness closed the session. */
export function endedTree(e: EndedView): VNode {
  const words = e.reason ? `session ended: ${e.reason}` : "session ended";
  return h("div", { class: "turn ended", role: "separator", "data-ended": "true" }, words);
}

export function turnTree(t: TurnView): VNode {
  let words = `turn ${t.turnId}`;
  if (t.finished) {
    words += ` ended (${t.stopReason || "end_turn"})`;
    const u = t.usage;
    if (u && (u.inputTokens || u.outputTokens)) words += ` · ${u.inputTokens} in, ${u.outputTokens} out tokens`;
  }
  return h(
    "div",
    { class: "turn", role: "separator", "data-turn": t.turnId, "data-finished": String(t.finished) },
    words,
  );
}

/** `subagent: 2 running, 1 done` — what a call's children are doing, counted from their cards. */
export function subagentSummary(children: Iterable<CardView>): string {
  const counts = { running: 0, done: 0, failed: 0 };
  for (const card of children) {
    if (card.status === "completed") counts.done += 1;
    else if (card.status === "failed") counts.failed += 1;
    else counts.running += 1;
  }
  const words = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([what, n]) => `${n} ${what}`);
  return `subagent: ${words.join(", ") || "no calls yet"}`;
}
