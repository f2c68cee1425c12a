// `@toolview/react/dom`: toolview's cards drawn into the DOM without React — for the viewer, the
// MCP App's view, or any page with no framework. The same trees as the React components
// (`cards.ts`), so a card looks the same everywhere. Elements are built with createElement and
// text nodes: never innerHTML. The trees themselves (`cardTree`, …) are here too, for a renderer
// of another framework.

import { cardTree, endedTree, messageText, messageTree, permissionTree, turnTree } from "./cards.js";
import type { Child, VNode } from "./node.js";
import type { CardView, EndedView, MessageView, PermissionView, RoleName, TurnView } from "./view.js";

export {
  cardTree,
  endedTree,
  messageTree,
  permissionTree,
  sessionRowTree,
  subagentSummary,
  turnTree,
} from "./cards.js";
export * from "./convert.js";
export { FleetModel, type FleetSnapshot, fleetOrder } from "./fleet.js";
export type { Child, VNode } from "./node.js";
export { type SessionChange, type SessionItem, SessionModel, type SessionSnapshot } from "./session.js";
export type * from "./view.js";

/** A tree as DOM nodes. */
export function toDom(node: VNode): HTMLElement {
  const e = document.createElement(node.tag);
  for (const [k, v] of Object.entries(node.attrs)) e.setAttribute(k, v);
  for (const c of node.children) {
    const child = domChild(c);
    if (child) e.append(child);
  }
  if (node.onClick) e.addEventListener("click", node.onClick);
  return e;
}

function domChild(c: Child): Node | string | null {
  if (!c) return null;
  return typeof c === "string" ? c : toDom(c);
}

/** A call's card. */
export function renderCard(card: CardView): HTMLElement {
  return toDom(cardTree(card));
}

/** A message item. */
export function renderMessage(m: MessageView): HTMLElement {
  return toDom(messageTree(m));
}

/** A message's text block (to redraw it as its deltas arrive). */
export function renderMessageText(role: RoleName, text: string): HTMLElement {
  return toDom(messageText(role, text));
}

/** A permission prompt; `answer` gets the option and the prompt's note, to say what became of
 *  the answer. Without `answer`, the options are shown as text. */
export function renderPermission(
  p: PermissionView,
  answer?: (optionId: string, note: HTMLElement) => void,
): HTMLElement {
  let note: HTMLElement | null = null;
  const shown = toDom(permissionTree(p, answer && ((optionId) => note && answer(optionId, note))));
  note = shown.querySelector<HTMLElement>(".note");
  return shown;
}

/** A turn boundary. */
export function renderTurn(t: TurnView): HTMLElement {
  return toDom(turnTree(t));
}

/** The harness closed the session. */
export function renderEnded(e: EndedView): HTMLElement {
  return toDom(endedTree(e));
}
