// The MCP App's view (`ui://toolview/session`): the viewer's cards (`cards.ts`) inside a host
// that runs MCP Apps, over the host's bridge (@modelcontextprotocol/ext-apps). The watch tool's
// result brings the session's first page of VIEW updates; then the view asks the server for the
// next page with the app-only `poll_session` tool, after its cursor, waiting at the head. A
// failed poll (the host suspended the view, the server restarted) is asked again after the same
// cursor, with a growing pause: nothing is lost or shown twice. A permission prompt's buttons
// answer through the app-only `answer_permission` tool. The view reaches no network of its own:
// everything comes through the host.

// First: zod (the bridge's schemas) must not probe for `eval` under the host's policy.
import "./jitless";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { RenderedUpdateSchema } from "@toolview/client";
import { App } from "@modelcontextprotocol/ext-apps";
import { type Answerer, SessionView } from "./session-view";

/** What `watch_session` and `poll_session` return as structured content. */
interface Page {
  session: string;
  updates: JsonValue[];
  cursor: { epoch: string; offset: number } | null;
  reset: boolean;
  more: boolean;
}

/** How long a poll waits at the head (the server lowers more than its limit). */
const WAIT_MS = 15_000;
/** The longest pause between failed polls. */
const MAX_PAUSE_MS = 10_000;

const header = document.getElementById("session")!;
const cards = document.getElementById("cards")!;
const state = document.getElementById("state")!;
const app = new App({ name: "toolview", version: "0.1.0" }, {}, { autoResize: true });

let view: SessionView | undefined;
let cursor: Page["cursor"] = null;
let polling = false;

function isPage(value: unknown): value is Page {
  return typeof value === "object" && value !== null && typeof (value as Page).session === "string" && Array.isArray((value as Page).updates);
}

/** A click on a permission prompt's option: answered through the host's call of the app-only
 *  `answer_permission` tool; the decision arrives with the next page, as it does for everyone. */
const answerer = (session: string): Answerer => (requestId) => (optionId, note) => {
  app
    .callServerTool({ name: "answer_permission", arguments: { session, requestId, optionId } })
    .then((r) => {
      const text = (r.content?.[0] as { text?: string })?.text ?? "";
      if (r.isError) note.textContent = `not answered: ${text}`;
      else if (text !== "answered") note.textContent = text;
    })
    .catch((e) => (note.textContent = `not answered: ${e}`));
};

/** Draws a page's updates (after clearing, for a reset) and keeps its cursor. */
function apply(page: Page): void {
  if (!view) {
    header.textContent = `Session ${page.session}`;
    view = new SessionView(cards, header, page.session, answerer(page.session));
  }
  if (page.reset) view.reset();
  for (const update of page.updates) view.apply(fromJson(RenderedUpdateSchema, update));
  if (page.cursor) cursor = page.cursor;
  document.body.dataset.pages = String(Number(document.body.dataset.pages ?? "0") + 1);
}

/** Asks for each next page, forever (the host ends the view by tearing it down). */
async function poll(session: string): Promise<void> {
  if (polling) return;
  polling = true;
  let pause = 500;
  for (;;) {
    try {
      const result = await app.callServerTool({
        name: "poll_session",
        arguments: cursor ? { session, after: cursor, waitMs: WAIT_MS } : { session, waitMs: WAIT_MS },
      });
      const page = result.structuredContent;
      if (result.isError || !isPage(page)) throw new Error(String((result.content?.[0] as { text?: string })?.text ?? "no page"));
      apply(page);
      state.textContent = "live";
      pause = 500;
    } catch (e) {
      state.textContent = `reconnecting: ${e instanceof Error ? e.message : e}`;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, MAX_PAUSE_MS);
    }
  }
}

app.ontoolresult = (result) => {
  const page = result.structuredContent;
  if (!isPage(page)) {
    state.textContent = "no session in this result";
    return;
  }
  apply(page);
  state.textContent = "live";
  void poll(page.session);
};

// The sandbox blocks a new window: a link in a card is opened by the host (`ui/open-link`),
// which may ask the person first or refuse.
cards.addEventListener("click", (e) => {
  const link = (e.target as Element | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
  if (!link || !/^https?:$/.test(new URL(link.href).protocol)) return;
  e.preventDefault();
  app.openLink({ url: link.href }).catch((err) => (state.textContent = `the link was not opened: ${err}`));
});

// The host tears the view down (it closed the conversation, or scrolled far away): nothing to
// keep, but the request is answered, as the spec asks.
app.onteardown = async () => ({});

app.connect().catch((e) => {
  state.textContent = `error: ${e}`;
});
