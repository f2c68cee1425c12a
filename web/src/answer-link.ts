// An answer link's page (`/#answer=<grant>`, from a webhook's notice): what the link answers
// and a button that does it. Opening the link changes nothing — chat apps and mail scanners
// fetch links to preview them — only the button's POST answers (`/links/<grant>`, JSON, from
// this origin). Every text shown is DOM text.

import { el } from "./session-view";

interface Option {
  optionId: string;
  name: string;
  kind: string;
}

interface Resolution {
  outcome: { type: "selected" | "expired"; optionId: string } | { type: "withdrawn" };
  reason: string;
  resolvedBy: { subject: string; via: string };
  resolvedAtMs: number;
}

/** `GET /links/<grant>`. */
interface Described {
  sessionId: string;
  sessionTitle: string;
  requestId: string;
  title: string;
  option: Option | null;
  expiresAtMs: number;
  hook: string;
  state: "pending" | "decided";
  resolution?: Resolution;
}

/** `alice via webhook chose allow` — what a resolution says, as a sentence. */
function decided(r: Resolution): string {
  const who = r.resolvedBy.via ? `${r.resolvedBy.subject || "someone"} via ${r.resolvedBy.via}` : r.resolvedBy.subject;
  switch (r.outcome.type) {
    case "selected":
      return `Already decided: ${who} chose ${r.outcome.optionId}.`;
    case "expired":
      return `Expired: nobody answered in time (${r.outcome.optionId} applied).`;
    case "withdrawn":
      return "Withdrawn: the agent stopped waiting.";
  }
}

/** Draws the link's prompt in `cards`, with a confirmation button while it waits. */
export async function answerLink(grant: string, header: HTMLElement, cards: HTMLElement, state: HTMLElement) {
  header.textContent = "Answer a prompt";
  const url = `/links/${encodeURIComponent(grant)}`;
  const response = await fetch(url);
  const body = await response.json();
  if (!response.ok) {
    state.textContent = body.error ?? `error ${response.status}`;
    return;
  }
  const d = body as Described;
  const note = el("p", { class: "answer-note", role: "status" });
  const session = el("a", { href: `?session=${encodeURIComponent(d.sessionId)}` }, d.sessionTitle || d.sessionId);
  const panel = el("section", { class: "answer-link", "data-state": d.state },
    el("p", {}, "Session ", session),
    d.title && el("p", { class: "prompt-title" }, d.title), note);
  cards.replaceChildren(panel);
  if (d.state === "decided" && d.resolution) {
    state.textContent = "decided";
    note.textContent = decided(d.resolution);
    return;
  }
  state.textContent = "waiting on you";
  const confirm = el("button", { type: "button", class: "confirm", "data-option": d.option?.optionId ?? "" },
    `Confirm: ${d.option?.name ?? "this answer"}`);
  panel.insertBefore(confirm, note);
  confirm.addEventListener("click", () => {
    confirm.setAttribute("disabled", "");
    void fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then(async (r) => {
      const answered = await r.json();
      if (r.ok) {
        state.textContent = "answered";
        note.textContent = `Answered: ${d.option?.name ?? ""}.`;
      } else if (answered.resolution) {
        state.textContent = "decided";
        note.textContent = decided(answered.resolution as Resolution);
      } else {
        note.textContent = answered.error ?? `error ${r.status}`;
      }
      confirm.remove();
    });
  });
}
