// The protobuf VIEW updates (gRPC, gRPC-Web) convert to the very JSON the server sends UIs over
// the AI SDK and AG-UI: for every recorded session, each card the `view` target renders, through
// `cardFromProto`, deep-equals the AI SDK target's `data-toolview-card` for the same update.
// Needs the server binary (TOOLVIEW_BIN) and the repository's sessions (TOOLVIEW_REPO).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { create, fromJson } from "@bufbuild/protobuf";
import { RenderedUpdateSchema, ResetSchema } from "@toolview/client";
import { cardFromProto, SessionModel } from "@toolview/react";

const bin = process.env.TOOLVIEW_BIN;
const repo = process.env.TOOLVIEW_REPO;
const SESSIONS = [
  "examples/sample-session.jsonl",
  "examples/conversation.jsonl",
  "tests/data/permission.jsonl",
  "tests/data/subagent.jsonl",
  "tests/data/streamed_input.jsonl",
  "tests/data/mcp_app.jsonl",
  "tests/data/markdown_answer.jsonl",
];

const render = (target, input) =>
  execFileSync(bin, ["render", "--target", target, "--terminal"], { input, maxBuffer: 1 << 26 })
    .toString()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** The AI SDK sends a parent's card again when only its children's progress changed (the VIEW
 *  target leaves that to a UI that has the children's cards): those are left out. */
function withoutProgressOnly(cards) {
  const last = new Map();
  return cards.filter((c) => {
    const before = last.get(c.callId);
    last.set(c.callId, c);
    if (!before) return true;
    const { children: _a, ...now } = c;
    const { children: _b, ...then } = before;
    return JSON.stringify(now) !== JSON.stringify(then);
  });
}

test("cards from protobuf equal the server's VIEW JSON, for every recorded session", { skip: !bin || !repo }, () => {
  let compared = 0;
  for (const path of SESSIONS) {
    const input = readFileSync(`${repo}/${path}`);
    const fromProto = render("view", input)
      .map((u) => fromJson(RenderedUpdateSchema, u, { ignoreUnknownFields: false }))
      .filter((u) => u.body.case === "view" && u.body.value.update.case === "card")
      .map((u) => cardFromProto(u.body.value.update.value));
    const sent = withoutProgressOnly(
      render("ai-sdk", input)
        .filter((c) => c.type === "data-toolview-card")
        .map((c) => c.data),
    );
    assert.equal(fromProto.length, sent.length, path);
    for (const [i, card] of fromProto.entries()) {
      // The app's `_meta` is not in the protobuf card (a UI that hosts apps reads it from MCP).
      const expected = structuredClone(sent[i]);
      if (expected.mcpApp) delete expected.mcpApp.meta;
      assert.deepEqual(card, expected, `${path}: card ${i} (${card.callId})`);
      compared += 1;
    }
  }
  assert.ok(compared > 30, `only ${compared} cards`);
});

test("SessionModel folds a session's updates into items: each call once, nested, appends in place, reset", {
  skip: !bin || !repo,
}, () => {
  const model = new SessionModel();
  const input = readFileSync(`${repo}/tests/data/subagent.jsonl`);
  for (const u of render("view", input)) model.apply(fromJson(RenderedUpdateSchema, u));
  const top = model.items.filter((i) => i.kind === "card");
  assert.ok(top.length >= 1);
  const parent = top.find((i) => model.childrenOf(i.card.callId).length > 0);
  assert.ok(parent, "a subagent's calls sit under their parent's card");
  for (const child of model.childrenOf(parent.card.callId)) {
    if (child.kind === "card") assert.equal(child.card.parentCallId, parent.card.callId);
  }
  // Each call shows once, however many updates it had.
  const ids = [...model.items, ...top.flatMap((i) => model.childrenOf(i.card.callId))]
    .filter((i) => i.kind === "card")
    .map((i) => i.card.callId);
  assert.equal(new Set(ids).size, ids.length);
  // An append grows its card's output: a new item object in the same place; the others keep
  // theirs (so a memoized component skips them).
  const before = [...model.items];
  const at = before.findIndex((i) => i.kind === "card");
  const { callId, streamed } = before[at].card;
  const append = fromJson(RenderedUpdateSchema, { view: { outputAppended: { callId, text: "more\n" } } });
  assert.ok(model.apply(append));
  assert.equal(model.items[at].card.streamed, `${streamed}more\n`);
  assert.notEqual(model.items[at], before[at]);
  assert.ok(before.every((item, i) => i === at || model.items[i] === item));
  // A reset forgets everything shown.
  assert.ok(model.apply(create(ResetSchema, {})));
  assert.equal(model.items.length, 0);
});

test("SessionModel shows a session's end as an item in its place", () => {
  const model = new SessionModel();
  const change = model.apply(fromJson(RenderedUpdateSchema, { view: { sessionEnded: { reason: "user quit" } } }));
  assert.equal(change.kind, "added");
  assert.deepEqual(
    model.items.map((i) => [i.kind, i.ended]),
    [["ended", { reason: "user quit" }]],
  );
});

test("SessionModel's snapshots never change, its changes say what to redraw, subscribers hear each", {
  skip: !bin || !repo,
}, () => {
  const model = new SessionModel();
  let heard = 0;
  const unsubscribe = model.subscribe(() => heard++);
  const input = readFileSync(`${repo}/tests/data/subagent.jsonl`);
  const changes = render("view", input).map((u) => model.apply(fromJson(RenderedUpdateSchema, u)));
  assert.equal(heard, changes.filter(Boolean).length, "one notice per change");
  const kinds = new Set(changes.filter(Boolean).map((c) => c.kind));
  for (const kind of ["session", "added", "replaced"]) assert.ok(kinds.has(kind), `${kind} in ${[...kinds]}`);
  assert.ok(
    changes.some((c) => c?.kind === "added" && c.parent),
    "a subagent's item is added under its parent",
  );
  // The same snapshot until the next change; an old one keeps what it held.
  const before = model.getSnapshot();
  assert.equal(model.getSnapshot(), before);
  assert.ok(Object.isFrozen(before.items));
  const at = before.items.findIndex((i) => i.kind === "card");
  const { callId, streamed } = before.items[at].card;
  const change = model.apply(fromJson(RenderedUpdateSchema, { view: { outputAppended: { callId, text: "more\n" } } }));
  assert.deepEqual([change.kind, change.field, change.text], ["appended", "streamed", "more\n"]);
  const after = model.getSnapshot();
  assert.notEqual(after, before);
  assert.equal(before.items[at].card.streamed, streamed, "the old snapshot is as it was");
  assert.equal(after.items[at].card.streamed, `${streamed}more\n`);
  // An update of no item changes nothing and is not heard.
  const quiet = heard;
  assert.equal(
    model.apply(fromJson(RenderedUpdateSchema, { view: { outputAppended: { callId: "nope", text: "x" } } })),
    undefined,
  );
  assert.equal(heard, quiet);
  assert.equal(model.getSnapshot(), after);
  unsubscribe();
});
