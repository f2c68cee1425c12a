// The toolview browser viewer: subscribes to one session (from the URL, `?session=ID`) over
// gRPC-Web and renders its VIEW card snapshots live (`cards.ts`). Each update replaces its call's
// card; messages (user, assistant, reasoning) and turn boundaries sit between the cards in order.
// Without a session, it lists the sessions the token may see (`ListSessions`).

import { Code } from "@connectrpc/connect";
// The client package: its generated messages, its resuming subscription and its bearer auth.
import { answerPermission, isReset, ToolviewError, type Client, VIEW_CAPABILITIES } from "@toolview/client";
import { connect } from "@toolview/client/web";
import { el, SessionView } from "./session-view";

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
  // An answer to a permission request: the decision itself arrives as an update to everyone.
  const answer = (requestId: string) => (optionId: string, note: HTMLElement) => {
    void answerPermission(location.origin, session, requestId, optionId, { token: token ?? undefined, via: "viewer" }).then(
      (why) => {
        if (why) note.textContent = why;
      },
    );
  };
  const view = new SessionView(cards, header, session, answer);
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
    capabilities: VIEW_CAPABILITIES,
    start: "beginning",
  });
  for await (const item of subscription) {
    state.textContent = "live";
    if (isReset(item)) view.reset();
    else view.apply(item);
  }
  state.textContent = "ended";
}

main().catch((e) => {
  document.getElementById("state")!.textContent = `error: ${e}`;
});
