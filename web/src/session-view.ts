// One session's items drawn into the page as its VIEW updates come (the viewer's and the MCP App
// view's). The fold is `@toolview/react`'s `SessionModel` — the one the React hook reads — and
// this draws each change it reports: an item added or replaced, text appended to a card's output
// or input or to a message (as text nodes), a subagent's items in a collapsible group inside its
// parent's card. The elements are `@toolview/react/dom`'s, the same the React components render.

import { create } from "@bufbuild/protobuf";
import { type RenderedUpdate, ResetSchema } from "@toolview/client";
import {
  renderCard,
  renderMessage,
  renderMessageText,
  renderPermission,
  renderEnded,
  renderTurn,
  type SessionChange,
  type SessionItem,
  SessionModel,
  subagentSummary,
} from "@toolview/react/dom";

/** A tiny element builder: el("div", {class: "x"}, child, …). */
export function el(tag: string, attrs: Record<string, string> = {}, ...children: (Node | string | null | undefined | false)[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c) e.append(c);
  return e;
}

/** How a permission prompt's option is answered: `(requestId) => (optionId, note) => …`. */
export type Answerer = (requestId: string) => (optionId: string, note: HTMLElement) => void;

/** One session's items in `cards`, as its VIEW updates come. */
export class SessionView {
  private readonly model = new SessionModel();
  /** The element drawn for each item, by its key. */
  private readonly shown = new Map<string, HTMLElement>();
  // A subagent's calls and messages: a collapsible group inside the card of the call they run
  // under, kept across that card's re-renders; its summary counts the children's states.
  private readonly groups = new Map<string, HTMLDetailsElement>();

  /** `answer`: how a prompt's buttons answer; without it, prompts show their options as text. */
  constructor(
    private readonly cards: HTMLElement,
    private readonly header: HTMLElement,
    private readonly session: string,
    private readonly answer?: Answerer,
  ) {}

  /** Forgets everything shown: the log was replaced, its updates follow from the beginning. */
  reset(): void {
    const change = this.model.apply(create(ResetSchema, {}));
    if (change) this.draw(change);
  }

  /** Draws one update (updates of other targets change nothing). */
  apply(update: RenderedUpdate): void {
    document.body.dataset.offset = String(update.cursor?.offset ?? "");
    const change = this.model.apply(update);
    if (change) this.draw(change);
  }

  private draw(change: SessionChange): void {
    switch (change.kind) {
      case "reset":
        this.shown.clear();
        this.groups.clear();
        this.cards.replaceChildren();
        return;
      case "session":
        this.header.textContent = `Session ${this.session}${change.cwd ? ` — ${change.cwd}` : ""}`;
        return;
      case "added": {
        const next = this.render(change.item);
        this.shown.set(change.item.key, next);
        (this.group(change.parent) ?? this.cards).append(next);
        this.summarize(change.parent);
        return;
      }
      case "replaced":
        this.replace(change.item);
        this.summarize(change.parent);
        return;
      case "appended":
        this.append(change.item, change.field, change.text);
        return;
    }
  }

  private render(item: SessionItem): HTMLElement {
    switch (item.kind) {
      case "card":
        return renderCard(item.card);
      case "message":
        return renderMessage(item.message);
      case "permission":
        return renderPermission(item.permission, this.answer?.(item.permission.requestId));
      case "turn":
        return renderTurn(item.turn);
      case "ended":
        return renderEnded(item.ended);
    }
  }

  /** Draws `item` again in place of what was drawn for it (a card keeps its group). */
  private replace(item: SessionItem): void {
    const next = this.render(item);
    const group = item.kind === "card" ? this.groups.get(item.card.callId) : undefined;
    if (group) next.append(group);
    this.shown.get(item.key)?.replaceWith(next);
    this.shown.set(item.key, next);
  }

  /** Appended text goes in as a text node (tool output is never markup); Markdown is read whole
   *  again (a later delta may close a fence); a block a card did not have yet draws it anew. */
  private append(item: SessionItem, field: "streamed" | "input" | "text", text: string): void {
    const shown = this.shown.get(item.key);
    if (!shown) return;
    if (item.kind === "message") {
      const node = shown.querySelector(".text");
      if (node && item.message.role === "user") node.append(text);
      else node?.replaceWith(renderMessageText(item.message.role, item.message.text));
      return;
    }
    const pre = shown.querySelector(field === "input" ? "pre.input" : "pre.output");
    if (pre) pre.append(text);
    else this.replace(item);
  }

  /** The group of `parent`'s card (made on its first child), when that card is shown. */
  private group(parent: string | undefined): HTMLElement | undefined {
    if (!parent) return undefined;
    const card = this.shown.get(`card:${parent}`);
    if (!card) return undefined;
    let details = this.groups.get(parent);
    if (!details) {
      details = el("details", { class: "children", open: "" }, el("summary", {}, "subagent")) as HTMLDetailsElement;
      this.groups.set(parent, details);
      card.append(details);
    }
    return details;
  }

  private summarize(parent: string | undefined): void {
    const summary = parent ? this.groups.get(parent)?.querySelector("summary") : undefined;
    if (!summary || !parent) return;
    const cards = this.model.childrenOf(parent).flatMap((i) => (i.kind === "card" ? [i.card] : []));
    summary.textContent = subagentSummary(cards);
  }
}
