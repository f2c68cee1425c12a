// The viewer's home page: an inbox of the sessions the token may see, live from the fleet watch
// (`WatchSessions` over gRPC-Web): sessions waiting on a person first (their prompt and, when the
// token may answer, its buttons), then running (what each does now), then failed and idle. Each
// row opens its session; closed (ended) sessions come last. Opt-in browser notifications say when
// a session starts waiting.

import { type Client, type GetSessionResponse, SessionState, SYNCED } from "@toolview/client";
import { el } from "./session-view";

/** Sessions asked for before the watch is live; the rest come as they change. */
const FIRST_PAGE = 500;

/** Rows in the order a person works through them. */
const ORDER: Record<number, number> = {
  [SessionState.REQUIRES_ACTION]: 0,
  [SessionState.RUNNING]: 1,
  [SessionState.FAILED]: 2,
  [SessionState.IDLE]: 3,
  [SessionState.ENDED]: 4,
};
const NAMES: Record<number, string> = {
  [SessionState.REQUIRES_ACTION]: "requires_action",
  [SessionState.RUNNING]: "running",
  [SessionState.FAILED]: "failed",
  [SessionState.IDLE]: "idle",
  [SessionState.ENDED]: "ended",
};

/** How a prompt's option is answered from the inbox: `(session, request, option, note)`. */
export type InboxAnswerer = (session: string, requestId: string, optionId: string, note: HTMLElement) => void;

const stateOf = (s: GetSessionResponse) => s.summary?.state ?? SessionState.UNSPECIFIED;
const rank = (s: GetSessionResponse) => ORDER[stateOf(s)] ?? 5;
/** Waiting longest first; the rest by id. */
const asked = (s: GetSessionResponse) => Number(s.summary?.pending[0]?.requestedAt?.seconds ?? 0n);
const before = (a: GetSessionResponse, b: GetSessionResponse) =>
  rank(a) - rank(b) || (rank(a) === 0 ? asked(a) - asked(b) : 0) || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0);

/** One row: the session's link and title, then its prompt with buttons, or what it does now. */
function row(s: GetSessionResponse, answer: InboxAnswerer): HTMLElement {
  const summary = s.summary;
  const state = NAMES[stateOf(s)] ?? "unknown";
  // The token stays in the fragment, which is never sent to a server.
  const href = `?session=${encodeURIComponent(s.sessionId)}${location.hash}`;
  const li = el("li", { "data-session": s.sessionId, "data-state": state },
    el("a", { href }, s.sessionId),
    s.title && el("span", { class: "session-title" }, ` ${s.title}`),
    el("span", { class: `pill state ${state}` }, state.replace("_", " ")));
  const prompt = summary?.pending[0];
  if (prompt) {
    const note = el("span", { class: "muted" });
    const canAnswer = s.rights.includes("approve");
    li.append(el("div", { class: "prompt", "data-request": prompt.requestId }, el("span", { class: "prompt-title" }, prompt.title),
      ...(canAnswer ? prompt.options.map((o) => {
        const b = el("button", { type: "button", "data-option": o.optionId }, o.name);
        b.addEventListener("click", () => answer(s.sessionId, prompt.requestId, o.optionId, note));
        return b;
      }) : []), note));
  } else if (summary?.activity) {
    li.append(el("div", { class: "muted activity" }, summary.activity));
  }
  return li;
}

/** Draws the inbox in `cards` and keeps it live until the page goes. */
export async function inbox(client: Client, header: HTMLElement, cards: HTMLElement, state: HTMLElement, answer: InboxAnswerer) {
  header.textContent = "Sessions";
  const list = el("ul", { class: "sessions inbox" });
  const notify = el("button", { class: "notify", type: "button" }, "Notify me when a session waits");
  notify.hidden = typeof Notification === "undefined" || Notification.permission === "granted";
  notify.addEventListener("click", () => void Notification.requestPermission().then(() => (notify.hidden = true)));
  cards.replaceChildren(notify, list);
  const sessions = new Map<string, GetSessionResponse>();
  let live = false;
  const draw = () => {
    const sorted = [...sessions.values()].sort(before);
    list.replaceChildren(...sorted.map((s) => row(s, answer)));
    const waiting = sorted.filter((s) => rank(s) === 0).length;
    state.textContent = !sorted.length ? "no sessions yet" : waiting ? `${waiting} waiting on you` : "live";
  };
  for await (const item of client.watchSessions({ pageSize: FIRST_PAGE })) {
    if (item === SYNCED) {
      live = true;
      draw();
      continue;
    }
    const was = sessions.get(item.sessionId);
    sessions.set(item.sessionId, item);
    if (live && rank(item) === 0 && (!was || rank(was) !== 0)) tell(item);
    if (live) draw();
  }
}

/** A browser notification that `s` waits, when the person asked for them. */
function tell(s: GetSessionResponse) {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  new Notification(`${s.sessionId} waits on you`, { body: s.summary?.pending[0]?.title ?? "", tag: s.sessionId });
}
