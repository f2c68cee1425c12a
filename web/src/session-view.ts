// One session's items drawn into the page as its VIEW updates come (the viewer's and the MCP App
// view's): a card replacing its call's, appends growing its output or input as text nodes, a
// subagent's items in a collapsible group inside its parent's card. The drawing itself is
// `@toolview/react/dom`'s — the same elements the React components render — from the VIEW JSON
// the protobuf updates convert to.

import type { RenderedUpdate } from "@toolview/client";
import {
  type CardView,
  cardFromProto,
  type MessageView,
  messageFromProto,
  permissionFromProto,
  renderCard,
  renderMessage,
  renderMessageText,
  renderPermission,
  renderTurn,
  subagentSummary,
  turnFromProto,
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
  private readonly byCall = new Map<string, { card: CardView; el: HTMLElement }>();
  private readonly byMessage = new Map<string, { message: MessageView; el: HTMLElement }>();
  /** Each parent's children's call ids, in order (its group's summary counts their cards). */
  private readonly children = new Map<string, string[]>();
  private readonly byPermission = new Map<string, HTMLElement>();
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
    this.byCall.clear();
    this.byMessage.clear();
    this.byPermission.clear();
    this.children.clear();
    this.groups.clear();
    this.cards.replaceChildren();
  }

  private group(parentId: string): HTMLElement | undefined {
    const parent = this.byCall.get(parentId);
    if (!parent) return undefined;
    let details = this.groups.get(parentId);
    if (!details) {
      details = el("details", { class: "children", open: "" }, el("summary", {}, "subagent")) as HTMLDetailsElement;
      this.groups.set(parentId, details);
      parent.el.append(details);
    }
    return details;
  }

  private summarize(parentId: string): void {
    const summary = this.groups.get(parentId)?.querySelector("summary");
    if (!summary) return;
    const ids = this.children.get(parentId) ?? [];
    summary.textContent = subagentSummary(ids.flatMap((id) => this.byCall.get(id)?.card ?? []));
  }

  /** A new item goes in its parent's group when the parent is shown, else at the end. */
  private place(parentId: string, next: HTMLElement): void {
    (this.group(parentId) ?? this.cards).append(next);
  }

  /** Draws one update (updates of other targets are ignored). */
  apply(update: RenderedUpdate): void {
    document.body.dataset.offset = String(update.cursor?.offset ?? "");
    if (update.body.case !== "view") return;
    const view = update.body.value.update;
    if (view.case === "session") {
      this.header.textContent = `Session ${this.session}${view.value.cwd ? ` — ${view.value.cwd}` : ""}`;
    } else if (view.case === "card") {
      const card = cardFromProto(view.value);
      const next = renderCard(card);
      const prev = this.byCall.get(card.callId);
      const group = this.groups.get(card.callId);
      if (group) next.append(group);
      if (prev) prev.el.replaceWith(next);
      else this.place(card.parentCallId ?? "", next);
      this.byCall.set(card.callId, { card, el: next });
      if (card.parentCallId) {
        if (!prev) {
          const ids = this.children.get(card.parentCallId) ?? [];
          ids.push(card.callId);
          this.children.set(card.parentCallId, ids);
        }
        this.summarize(card.parentCallId);
      }
    } else if (view.case === "message") {
      const message = messageFromProto(view.value);
      const next = renderMessage(message);
      const prev = this.byMessage.get(message.messageId);
      if (prev) prev.el.replaceWith(next);
      else this.place(message.parentCallId ?? "", next);
      this.byMessage.set(message.messageId, { message, el: next });
    } else if (view.case === "messageAppended") {
      const shown = this.byMessage.get(view.value.messageId);
      if (!shown) return;
      shown.message.text += view.value.text;
      // Markdown is read whole again (a later delta may close a fence); a user's text appends.
      const text = shown.el.querySelector(".text")!;
      if (shown.message.role === "user") text.append(view.value.text);
      else text.replaceWith(renderMessageText(shown.message.role, shown.message.text));
    } else if (view.case === "permission") {
      const id = view.value.request?.requestId ?? "";
      const next = renderPermission(permissionFromProto(view.value), this.answer?.(id));
      const prev = this.byPermission.get(id);
      if (prev) prev.replaceWith(next);
      else this.cards.append(next);
      this.byPermission.set(id, next);
    } else if (view.case === "turn") {
      this.cards.append(renderTurn(turnFromProto(view.value)));
    } else if (view.case === "inputAppended" || view.case === "outputAppended") {
      const shown = this.byCall.get(view.value.callId);
      if (!shown) return;
      const input = view.case === "inputAppended";
      if (input) shown.card.input = (shown.card.input ?? "") + view.value.text;
      else shown.card.streamed += view.value.text;
      // The text goes in as a text node: tool output is never markup.
      const pre = shown.el.querySelector(input ? "pre.input" : "pre.output");
      if (pre) {
        pre.append(view.value.text);
      } else {
        // The first piece of a card that showed none: render it once with its block.
        const next = renderCard(shown.card);
        shown.el.replaceWith(next);
        shown.el = next;
      }
    }
  }
}
