// The cards as React renders them (react-dom/server): every card kind, tool output as text, no
// live link but http(s) and mailto, and the React elements the same as the tree the DOM renderer
// draws (the browser test compares the DOM of both on real pages).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  FleetModel,
  ToolviewCard,
  ToolviewEnded,
  ToolviewInbox,
  ToolviewMessage,
  ToolviewPart,
  ToolviewPermission,
  ToolviewTurn,
} from "@toolview/react";
import { cardTree, endedTree, messageTree, permissionTree, sessionRowTree, turnTree } from "@toolview/react/dom";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";

// React escapes `"` in text too (a browser would not): so does this serializer.
const esc = (s) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const attr = (s) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
/** A tree as HTML, the way react-dom/server writes it. */
function html(node) {
  if (!node) return "";
  if (typeof node === "string") return esc(node);
  const attrs = Object.entries(node.attrs)
    .map(([k, v]) => ` ${k}="${attr(v)}"`)
    .join("");
  return `<${node.tag}${attrs}>${node.children.map(html).join("")}</${node.tag}>`;
}
// React writes `class` as given and `'` in text as &#x27;: normalized to the browser's form.
/** One edit of a.ts, with its line diff as the server draws it. */
const aTs = {
  path: "a.ts",
  oldText: "a\nb",
  newText: "a\nc",
  runs: [
    { op: "context", lines: 1 },
    { op: "removed", lines: 1 },
    { op: "added", lines: 1 },
  ],
};

const react = (el) => renderToStaticMarkup(el).replaceAll("&#x27;", "'");

export const CARDS = {
  terminal: {
    callId: "b1",
    toolName: "bash",
    status: "completed",
    call: { card: "terminal", title: "npm test", description: "Run the tests", cwd: "/work" },
    result: { card: "terminal", output: "<b>not bold</b>\n\u001b[31mred\u001b[0m\n", exitCode: 1 },
    streamed: "",
  },
  running: {
    callId: "b2",
    toolName: "bash",
    status: "in_progress",
    call: { card: "terminal", title: "sleep 5" },
    streamed: "tick\n",
    chunks: ["tock\n"],
  },
  diff: {
    callId: "e1",
    toolName: "edit",
    status: "completed",
    call: {
      card: "diff",
      title: "Edit a.ts",
      diffs: [aTs],
    },
    result: {
      card: "diff",
      diffs: [aTs, { path: "n.ts", oldText: null, newText: "new", runs: [{ op: "added", lines: 1 }] }],
    },
    streamed: "",
  },
  read: {
    callId: "r1",
    toolName: "read",
    status: "completed",
    call: { card: "generic", title: "Read a.ts", kind: "read" },
    result: {
      card: "read",
      path: "a.ts",
      offset: 7,
      lines: [{ number: 7, text: "<script>alert(1)</script>" }],
      totalLines: 9,
    },
    streamed: "",
  },
  matches: {
    callId: "g1",
    toolName: "grep",
    status: "completed",
    call: { card: "generic", title: "grep TODO" },
    result: {
      card: "search",
      shape: "matches",
      files: [{ path: "a.ts", matches: [{ lineNumber: 3, line: "// TODO" }] }],
      truncated: true,
      total: 40,
    },
    streamed: "",
  },
  paths: {
    callId: "g2",
    toolName: "glob",
    status: "completed",
    call: { card: "generic", title: "glob *.ts" },
    result: { card: "search", shape: "paths", paths: ["a.ts", "b.ts"], truncated: false, total: 2 },
    streamed: "",
  },
  fetch: {
    callId: "w1",
    toolName: "web_fetch",
    status: "completed",
    call: { card: "generic", title: "Fetch" },
    result: { card: "web", kind: "fetch", url: "https://a.test/", statusCode: 200, truncated: false },
    streamed: "",
  },
  search: {
    callId: "w2",
    toolName: "web_search",
    status: "completed",
    call: { card: "generic", title: "Search" },
    result: {
      card: "web",
      kind: "search",
      answer: "42",
      truncated: false,
      sources: [
        { url: "https://ok.test/", title: "ok", snippet: "fine" },
        { url: "javascript:alert(1)", title: "click me" },
      ],
    },
    streamed: "",
  },
  generic: {
    callId: "m1",
    toolName: "mcp__x__y",
    status: "failed",
    call: { card: "generic", title: "y" },
    result: {
      card: "generic",
      content: [
        { type: "text", text: "<img src=x onerror=alert(1)>" },
        { type: "resource_link", uri: "javascript:alert(1)", name: "bad" },
        { type: "image", mimeType: "image/png" },
      ],
    },
    streamed: "",
    mcpApp: { resourceUri: "ui://x/view" },
  },
  pending: {
    callId: "p1",
    toolName: "write",
    status: "pending",
    call: { card: "generic", title: "write" },
    streamed: "",
    input: '{"path": "<a',
  },
  orphan: { callId: "o1", toolName: "", status: "in_progress", streamed: "late output" },
};

test("every card kind renders in React exactly as its tree (what the DOM renderer draws)", () => {
  for (const [name, card] of Object.entries(CARDS)) {
    assert.equal(react(createElement(ToolviewCard, { card })), html(cardTree(card)), name);
  }
  const message = {
    messageId: "m",
    role: "assistant",
    text: "**hi** <b>x</b> [a](javascript:alert(1))",
    status: "complete",
  };
  assert.equal(react(createElement(ToolviewMessage, { message })), html(messageTree(message)));
  const turn = { turnId: "t1", finished: true, stopReason: "end_turn", usage: { inputTokens: 3, outputTokens: 4 } };
  assert.equal(react(createElement(ToolviewTurn, { turn })), html(turnTree(turn)));
  const ended = { reason: "closed <b>by</b> the user" };
  const shown = react(createElement(ToolviewEnded, { ended }));
  assert.equal(shown, html(endedTree(ended)));
  assert.ok(shown.includes("session ended: closed &lt;b&gt;by&lt;/b&gt; the user"), shown);
  // The AI SDK's part for it draws the same.
  const part = { type: "data-toolview-session", id: "session", data: { state: "ended", reason: ended.reason } };
  assert.equal(react(createElement(ToolviewPart, { part, id: "session" })), shown);
});

test("tool output is text: no markup, no escape sequence as markup, no script link", () => {
  const all = Object.values(CARDS)
    .map((card) => react(createElement(ToolviewCard, { card })))
    .join("\n");
  assert.ok(!all.includes("<b>") && all.includes("&lt;b&gt;not bold&lt;/b&gt;"));
  assert.ok(!all.includes("<script") && !all.includes("<img"));
  assert.ok(!/href="javascript/i.test(all), "a javascript: URL is never a link");
  assert.ok(all.includes('href="https://ok.test/"'));
  // Exit status, hunks, line numbers, the streamed output with AG-UI's chunks after it.
  assert.match(all, /data-exit="1">exit 1</);
  assert.match(all, /<span class="del">- b\n<\/span><span class="add">\+ c\n<\/span>/);
  assert.match(all, /<span class="ln">7<\/span>/);
  assert.match(all, /tick\ntock\n/);
  assert.match(all, /n\.ts \(new\)/);
  assert.match(all, /showing part of 40/);
  assert.match(all, /app: ui:\/\/x\/view/);
});

test("a permission prompt: buttons while it waits (with an answer), then the decision", () => {
  const p = {
    requestId: "q1",
    callId: "b1",
    title: "Run rm -rf build?",
    description: "<i>sure?</i>",
    state: "pending",
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
    expiryOptionId: "reject",
    expiresAt: "2026-12-05T10:05:00.000Z",
    expiresAtMs: 1796465100000,
  };
  const answered = [];
  const tree = permissionTree(p, (id) => answered.push(id));
  const buttons = tree.children.find((c) => c && c.attrs?.class === "options").children;
  buttons[0].onClick();
  assert.deepEqual(answered, ["allow"]);
  const waiting = react(createElement(ToolviewPermission, { permission: p, onAnswer: async () => undefined }));
  assert.match(waiting, /<button type="button" data-option="allow" class="allow">Allow<\/button>/);
  assert.ok(waiting.includes("&lt;i&gt;sure?&lt;/i&gt;"));
  assert.match(react(createElement(ToolviewPermission, { permission: p })), /class="muted options">Allow · Reject</);
  const decided = {
    ...p,
    state: "selected",
    resolution: {
      optionId: "reject",
      allowed: false,
      by: { subject: "alice", via: "viewer" },
      reason: "",
      resolvedAt: "2026-12-05T10:01:00.000Z",
    },
  };
  const out = react(createElement(ToolviewPermission, { permission: decided }));
  assert.match(out, /data-state="rejected"/);
  assert.match(out, /Reject — alice via viewer at 2026-12-05T10:01:00.000Z/);
  assert.ok(!out.includes("<button"));
});

/** The lines of a diff card's `pre.diff`, as [prefix, text]. */
function diffLines(card) {
  const tree = cardTree(card);
  const find = (n) =>
    typeof n === "object" && n ? (n.attrs?.class === "diff" ? n : n.children.map(find).find(Boolean)) : undefined;
  const diff = find(tree);
  assert.ok(diff, "a pre.diff");
  return diff.children.filter((c) => c && typeof c === "object").map((l) => l.children.join(""));
}

test("a diff is drawn from the server's runs in O(lines); without runs, coarse", () => {
  const card = (oldText, newText, runs) => ({
    callId: "d",
    toolName: "edit",
    status: "completed",
    streamed: "",
    call: { card: "diff", title: "Edit a.ts", diffs: [{ path: "a.ts", oldText, newText, runs }] },
  });
  const runs = [
    { op: "context", lines: 1 },
    { op: "removed", lines: 1 },
    { op: "added", lines: 1 },
    { op: "context", lines: 2 },
  ];
  const small = diffLines(card("a\nb\nc\nd", "a\nB\nc\nd", runs));
  assert.deepEqual(small, ["  a\n", "- b\n", "+ B\n", "  c\n", "  d\n"]);
  // A count past the text draws what the text has, and costs no more: a run takes at most what
  // its side has left.
  const hostile = diffLines(card("a\nb", "a\nb", [{ op: "context", lines: 1e12 }]));
  assert.deepEqual(hostile, ["  a\n", "  b\n"]);
  // No runs (a card not from the server's VIEW): every old line removed, then every new one.
  const many = (p) => Array.from({ length: 3000 }, (_, i) => `${p}${i}`).join("\n");
  const coarse = diffLines(card(many("old"), many("new"), undefined));
  assert.equal(coarse.length, 6000);
  assert.ok(coarse.slice(0, 3000).every((l) => l.startsWith("- ")));
  assert.ok(coarse.slice(3000).every((l) => l.startsWith("+ ")));
});

const row = (sessionId, state, extra = {}) => ({
  sessionId,
  title: "",
  cwd: "",
  state,
  activity: "",
  pendingCount: 0,
  canAnswer: true,
  updatedAtMs: 0,
  ...extra,
});

test("an inbox: its rows are the viewer's trees, a prompt's buttons only for a token that may answer", () => {
  const prompt = {
    requestId: "p1",
    title: "Deploy <b>now</b>?",
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
    requestedAtMs: 5,
  };
  const rows = [
    row("a/asks", "requires_action", { prompt, pendingCount: 1, title: "Ship it" }),
    row("b/busy", "running", { activity: "npm test" }),
  ];
  const href = (id) => `?session=${encodeURIComponent(id)}`;
  const shown = react(createElement(ToolviewInbox, { sessions: rows, onAnswer: () => undefined }));
  const trees = rows.map((r) => html(sessionRowTree(r, href(r.sessionId), () => {}, ""))).join("");
  assert.equal(shown, `<ul class="sessions inbox">${trees}</ul>`);
  assert.ok(shown.includes("Deploy &lt;b&gt;now&lt;/b&gt;?") && shown.includes('data-option="allow"'), shown);
  // Without `approve`, no buttons.
  const readOnly = react(
    createElement(ToolviewInbox, { sessions: [{ ...rows[0], canAnswer: false }], onAnswer: () => undefined }),
  );
  assert.ok(!readOnly.includes("<button"), readOnly);
});

test("a fleet is in the order a person works: waiting longest first, then by state and recency", () => {
  const model = new FleetModel();
  const at = (s) => ({ seconds: BigInt(s), nanos: 0 });
  const session = (sessionId, state, updated, asked) => ({
    sessionId,
    title: "",
    cwd: "",
    rights: ["read"],
    updatedAt: at(updated),
    summary: {
      state,
      activity: "",
      pendingCount: asked ? 1n : 0n,
      pending: asked ? [{ requestId: "p", title: "?", options: [], requestedAt: at(asked) }] : [],
    },
  });
  // SessionState: 1 requires_action, 2 running, 3 failed, 4 idle, 5 ended.
  model.apply(session("idle-old", 4, 1));
  model.apply(session("ended", 5, 9));
  model.apply(session("asked-late", 1, 9, 8));
  model.apply(session("idle-new", 4, 7));
  model.apply(session("asked-early", 1, 9, 2));
  model.apply(session("failed", 3, 3));
  const before = model.getSnapshot();
  assert.equal(before.synced, false);
  model.apply("synced");
  const { sessions, synced } = model.getSnapshot();
  assert.equal(synced, true);
  assert.notEqual(model.getSnapshot(), before);
  assert.deepEqual(
    sessions.map((s) => s.sessionId),
    ["asked-early", "asked-late", "failed", "idle-new", "idle-old", "ended"],
  );
  // A later summary replaces the row.
  model.apply(session("asked-early", 2, 10));
  assert.deepEqual(
    model
      .getSnapshot()
      .sessions.map((s) => [s.sessionId, s.state])
      .slice(0, 2),
    [
      ["asked-late", "requires_action"],
      ["asked-early", "running"],
    ],
  );
});
