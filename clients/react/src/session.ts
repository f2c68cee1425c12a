// A session's items as its VIEW updates come, without I/O or React: the state the hook
// (`useToolviewSession`) holds and `<ToolviewSession>` draws. Each update replaces its call's,
// message's or prompt's item (a new object, so an unchanged item keeps its identity and a memoized
// component skips it; the lists themselves change in place: a re-render reads them again); appends grow a card's output or input and a message's text; a subagent's
// calls and messages go under the card of the call they run under.

import { type Item, isReset } from "@toolview/client";
import { cardFromProto, messageFromProto, permissionFromProto, turnFromProto } from "./convert.js";
import type { CardView, MessageView, PermissionView, TurnView } from "./view.js";

/** One item of a session, in the order it first appeared. */
export type SessionItem =
  | { kind: "card"; key: string; card: CardView }
  | { kind: "message"; key: string; message: MessageView }
  | { kind: "permission"; key: string; permission: PermissionView }
  | { kind: "turn"; key: string; turn: TurnView };

/** The items of a session: `items` at the top, `childrenOf(callId)` under a card. */
export class SessionModel {
  /** The session's working directory, once it said. */
  cwd = "";
  /** The offset of the last update applied. */
  offset = "";
  private readonly top: SessionItem[] = [];
  private readonly under = new Map<string, SessionItem[]>();
  /** Where each keyed item is: its list and its index there (items are only added at the end or
   *  replaced, so an update costs O(1)). */
  private readonly where = new Map<string, { list: SessionItem[]; at: number }>();
  private turns = 0;

  /** The items at the top. */
  get items(): readonly SessionItem[] {
    return this.top;
  }

  /** The items of the call `callId`'s subagent (empty when it has none). */
  childrenOf(callId: string): readonly SessionItem[] {
    return this.under.get(callId) ?? [];
  }

  /** Applies one item of a subscription (a `Reset` forgets everything shown). Returns whether
   *  anything changed. */
  apply(item: Item): boolean {
    if (isReset(item)) {
      this.top.length = 0;
      this.under.clear();
      this.where.clear();
      this.cwd = "";
      return true;
    }
    this.offset = String(item.cursor?.offset ?? "");
    if (item.body.case !== "view") return false;
    const view = item.body.value.update;
    switch (view.case) {
      case "session":
        this.cwd = view.value.cwd;
        return true;
      case "card": {
        const card = cardFromProto(view.value);
        return this.put({ kind: "card", key: `card:${card.callId}`, card }, card.parentCallId);
      }
      case "message": {
        const message = messageFromProto(view.value);
        return this.put({ kind: "message", key: `message:${message.messageId}`, message }, message.parentCallId);
      }
      case "permission": {
        const permission = permissionFromProto(view.value);
        return this.put({ kind: "permission", key: `permission:${permission.requestId}`, permission }, undefined);
      }
      case "turn":
        this.turns += 1;
        return this.put({ kind: "turn", key: `turn:${this.turns}`, turn: turnFromProto(view.value) }, undefined);
      case "messageAppended":
        return this.change(`message:${view.value.messageId}`, (i) =>
          i.kind === "message" ? { ...i, message: { ...i.message, text: i.message.text + view.value.text } } : i,
        );
      case "inputAppended":
      case "outputAppended": {
        const field = view.case === "inputAppended" ? "input" : "streamed";
        const text = view.value.text;
        return this.change(`card:${view.value.callId}`, (i) =>
          i.kind === "card" ? { ...i, card: { ...i.card, [field]: (i.card[field] ?? "") + text } } : i,
        );
      }
      case undefined:
        return false;
    }
  }

  /** Replaces the item with `next.key`, or adds it: under its parent's card when that is shown. */
  private put(next: SessionItem, parent: string | undefined): boolean {
    if (this.change(next.key, () => next)) return true;
    const list = parent && this.where.has(`card:${parent}`) ? this.children(parent) : this.top;
    this.where.set(next.key, { list, at: list.length });
    list.push(next);
    return true;
  }

  private children(parent: string): SessionItem[] {
    let list = this.under.get(parent);
    if (!list) {
      list = [];
      this.under.set(parent, list);
    }
    return list;
  }

  /** Replaces the item `key` with `f(item)`: a new object, in the same place (items never move). */
  private change(key: string, f: (i: SessionItem) => SessionItem): boolean {
    const place = this.where.get(key);
    if (!place) return false;
    place.list[place.at] = f(place.list[place.at]);
    return true;
  }
}
