// A session's items as its VIEW updates come, without I/O or React: the one fold of a session's
// updates on the JavaScript side. `useToolviewSession` reads its immutable snapshots through
// `useSyncExternalStore`, `<ToolviewSession>` draws them, and the viewer and the MCP App view
// patch the page from the change each update makes. Each update replaces its call's, message's
// or prompt's item (a new object, so an unchanged item keeps its identity and a memoized
// component skips it); appends grow a card's output or input and a message's text; a subagent's
// calls and messages go under the card of the call they run under.

import { type Item, isReset } from "@toolview/client";
import { cardFromProto, messageFromProto, permissionFromProto, turnFromProto } from "./convert.js";
import type { CardView, EndedView, MessageView, PermissionView, TurnView } from "./view.js";

/** One item of a session, in the order it first appeared. */
export type SessionItem =
  | { kind: "card"; key: string; card: CardView }
  | { kind: "message"; key: string; message: MessageView }
  | { kind: "permission"; key: string; permission: PermissionView }
  | { kind: "turn"; key: string; turn: TurnView }
  | { kind: "ended"; key: string; ended: EndedView };

/** What one update changed: what a view that drew the items before patches. */
export type SessionChange =
  /** Everything shown goes: the log was replaced, its updates follow from the beginning. */
  | { kind: "reset" }
  /** The session's working directory. */
  | { kind: "session"; cwd: string }
  /** A new item, at the end of the top list or of `parent`'s children. */
  | { kind: "added"; item: SessionItem; parent?: string }
  /** The item with the same key, replaced (`parent`: the card it is under, if any). */
  | { kind: "replaced"; item: SessionItem; parent?: string }
  /** `text` appended to a card's output or input, or to a message; `item` is the item after. */
  | { kind: "appended"; item: SessionItem; field: "streamed" | "input" | "text"; text: string };

/** The items of a session at one moment; never changes (the next update makes a new one). */
export interface SessionSnapshot {
  /** The items at the top, in order. */
  readonly items: readonly SessionItem[];
  /** The items of the call `callId`'s subagent (empty when it has none). */
  readonly childrenOf: (callId: string) => readonly SessionItem[];
  /** The session's working directory, once it said. */
  readonly cwd: string;
  /** The offset of the last update applied. */
  readonly offset: string;
}

const NONE: readonly SessionItem[] = Object.freeze([]);

/** The fold: applies a subscription's items, says what each changed, and gives snapshots. */
export class SessionModel {
  private cwd = "";
  private offset = "";
  private readonly top: SessionItem[] = [];
  private readonly under = new Map<string, SessionItem[]>();
  /** Where each keyed item is: its list, its index there, the card it is under (items are only
   *  added at the end or replaced, so an update costs O(1)). */
  private readonly where = new Map<string, { list: SessionItem[]; at: number; parent?: string }>();
  private turns = 0;
  private readonly listeners = new Set<() => void>();
  private snapshot?: SessionSnapshot;

  /** Calls `listener` after every change; returns the unsubscribe (`useSyncExternalStore`'s). */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The items now: the same object until the next change (so React re-renders only then). */
  readonly getSnapshot = (): SessionSnapshot => {
    if (!this.snapshot) {
      const items = Object.freeze(this.top.slice());
      const under = new Map([...this.under].map(([id, list]) => [id, Object.freeze(list.slice())] as const));
      this.snapshot = Object.freeze({
        items,
        childrenOf: (callId: string) => under.get(callId) ?? NONE,
        cwd: this.cwd,
        offset: this.offset,
      });
    }
    return this.snapshot;
  };

  /** The items at the top now. */
  get items(): readonly SessionItem[] {
    return this.getSnapshot().items;
  }

  /** A card's subagent items now. */
  childrenOf(callId: string): readonly SessionItem[] {
    return this.getSnapshot().childrenOf(callId);
  }

  /** Applies one item of a subscription (a `Reset` forgets everything shown): what it changed,
   *  or nothing. */
  apply(item: Item): SessionChange | undefined {
    const change = this.fold(item);
    if (!isReset(item)) this.offset = String(item.cursor?.offset ?? "");
    if (change) {
      this.snapshot = undefined;
      for (const listener of this.listeners) listener();
    }
    return change;
  }

  private fold(item: Item): SessionChange | undefined {
    if (isReset(item)) {
      this.top.length = 0;
      this.under.clear();
      this.where.clear();
      this.cwd = "";
      return { kind: "reset" };
    }
    if (item.body.case !== "view") return undefined;
    const view = item.body.value.update;
    switch (view.case) {
      case "session":
        this.cwd = view.value.cwd;
        return { kind: "session", cwd: this.cwd };
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
      case "sessionEnded":
        this.turns += 1;
        return this.put({ kind: "ended", key: `ended:${this.turns}`, ended: { reason: view.value.reason } }, undefined);
      case "messageAppended": {
        const text = view.value.text;
        const next = this.change(`message:${view.value.messageId}`, (i) =>
          i.kind === "message" ? { ...i, message: { ...i.message, text: i.message.text + text } } : i,
        );
        return next && { kind: "appended", item: next, field: "text", text };
      }
      case "inputAppended":
      case "outputAppended": {
        const field = view.case === "inputAppended" ? "input" : "streamed";
        const text = view.value.text;
        const next = this.change(`card:${view.value.callId}`, (i) =>
          i.kind === "card" ? { ...i, card: { ...i.card, [field]: (i.card[field] ?? "") + text } } : i,
        );
        return next && { kind: "appended", item: next, field, text };
      }
      case undefined:
        return undefined;
    }
  }

  /** Replaces the item with `next.key`, or adds it: under its parent's card when that is shown. */
  private put(next: SessionItem, parent: string | undefined): SessionChange {
    const replaced = this.change(next.key, () => next);
    if (replaced) return { kind: "replaced", item: replaced, parent: this.where.get(next.key)?.parent };
    const under = parent && this.where.has(`card:${parent}`) ? parent : undefined;
    const list = under ? this.children(under) : this.top;
    this.where.set(next.key, { list, at: list.length, parent: under });
    list.push(next);
    return { kind: "added", item: next, parent: under };
  }

  private children(parent: string): SessionItem[] {
    let list = this.under.get(parent);
    if (!list) {
      list = [];
      this.under.set(parent, list);
    }
    return list;
  }

  /** Replaces the item `key` with `f(item)`, in the same place (items never move); the new item,
   *  or nothing when there is no such item. */
  private change(key: string, f: (i: SessionItem) => SessionItem): SessionItem | undefined {
    const place = this.where.get(key);
    if (!place) return undefined;
    place.list[place.at] = f(place.list[place.at]);
    return place.list[place.at];
  }
}
