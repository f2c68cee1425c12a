// The viewer's home page: an inbox of the sessions the token may see, live from the fleet watch
// (`WatchSessions` over gRPC-Web), folded and ordered by `@toolview/react`'s `FleetModel` and
// drawn with its `sessionRowTree` (the rows `<ToolviewInbox>` draws): sessions waiting on a person
// first (their prompt and, when the token may answer, its buttons), then running (what each does
// now), then failed, idle and ended. Each row opens its session. Opt-in browser notifications say
// when a session starts waiting.

import { type Client, SYNCED } from "@toolview/client";
import { FleetModel, type SessionRowView, sessionRowTree, toDom } from "@toolview/react/dom";
import { el } from "./session-view";

/** Sessions asked for before the watch is live; the rest come as they change. */
const FIRST_PAGE = 500;

/** How a prompt's option is answered from the inbox: `(session, request, option, note)`. */
export type InboxAnswerer = (session: string, requestId: string, optionId: string, note: HTMLElement) => void;

/** One row; its note shows what became of an answer. */
function row(s: SessionRowView, answer: InboxAnswerer): HTMLElement {
  // The token stays in the fragment, which is never sent to a server.
  const href = `?session=${encodeURIComponent(s.sessionId)}${location.hash}`;
  let note: HTMLElement | null = null;
  const li = toDom(sessionRowTree(s, href, (requestId, optionId) => note && answer(s.sessionId, requestId, optionId, note)));
  note = li.querySelector<HTMLElement>(".note");
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
  const model = new FleetModel();
  const draw = () => {
    const { sessions } = model.getSnapshot();
    list.replaceChildren(...sessions.map((s) => row(s, answer)));
    const waiting = sessions.filter((s) => s.state === "requires_action").length;
    state.textContent = !sessions.length ? "no sessions yet" : waiting ? `${waiting} waiting on you` : "live";
  };
  for await (const item of client.watchSessions({ pageSize: FIRST_PAGE })) {
    if (item === SYNCED) {
      model.apply("synced");
      draw();
      continue;
    }
    const live = model.getSnapshot().synced;
    const was = model.getSnapshot().sessions.find((s) => s.sessionId === item.sessionId);
    const now = model.apply(item);
    if (live && now?.state === "requires_action" && was?.state !== "requires_action") tell(now);
    if (live) draw();
  }
}

/** A browser notification that `s` waits, when the person asked for them. */
function tell(s: SessionRowView) {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  new Notification(`${s.sessionId} waits on you`, { body: s.prompt?.title ?? "", tag: s.sessionId });
}
