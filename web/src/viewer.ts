// The toolview browser viewer: subscribes to one session (from the URL, `?session=ID`) over
// gRPC-Web and renders its VIEW card snapshots live (`cards.ts`). Each update replaces its call's
// card; messages (user, assistant, reasoning) and turn boundaries sit between the cards in order.
// Without a session, it is an inbox of the sessions the token may see, live (`inbox.ts`); with
// `#answer=<grant>` (a webhook's answer link), the prompt that link answers (`answer-link.ts`).

import { Code } from "@connectrpc/connect";
// The client package: its generated messages, its resuming subscription and its bearer auth.
import { answerPermission, isReset, ToolviewError, type Client, VIEW_CAPABILITIES } from "@toolview/client";
import { connect } from "@toolview/client/web";
import { answerLink } from "./answer-link";
import { inbox } from "./inbox";
import { SessionView } from "./session-view";

async function main() {
  const params = new URLSearchParams(location.search);
  const session = params.get("session") ?? "";
  const header = document.getElementById("session")!;
  const cards = document.getElementById("cards")!;
  const state = document.getElementById("state")!;
  // A token comes in the URL fragment (`#token=…`), which browsers never send to a server or
  // put in a Referer; it goes out only as the `authorization` header of the gRPC-Web calls.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const grant = fragment.get("answer");
  if (grant) {
    await answerLink(grant, header, cards, state);
    return;
  }
  const token = fragment.get("token");
  const client = connect(location.origin, { token: token ?? undefined });
  if (!session) {
    const answerFromInbox = (s: string, requestId: string, optionId: string, note: HTMLElement) => {
      void answerPermission(location.origin, s, requestId, optionId, { token: token ?? undefined, via: "inbox" }).then(
        (why) => {
          if (why) note.textContent = why;
        },
      );
    };
    await inbox(client, header, cards, state, answerFromInbox);
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
