// The cards as React components: each draws its tree (`cards.ts`) with createElement, so a React
// host shows exactly the elements the viewer shows. Text stays text (React escapes every string
// child); there is no dangerouslySetInnerHTML anywhere in the package.

import { createElement, type FunctionComponent, memo, type ReactElement, type ReactNode, useState } from "react";
import {
  cardTree,
  endedTree,
  messageTree,
  newer,
  permissionTree,
  sessionRowTree,
  subagentSummary,
  turnTree,
} from "./cards.js";
import type { Child, VNode } from "./node.js";
import type { SessionItem } from "./session.js";
import type { CardView, EndedView, MessageView, PermissionView, SessionRowView, TurnView } from "./view.js";

/** A tree as React elements; `extra` goes after the root's own children. */
export function toReact(node: VNode, extra?: ReactNode): ReactElement {
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node.attrs)) props[k === "class" ? "className" : k] = v;
  if (node.onClick) props.onClick = node.onClick;
  return createElement(node.tag, props, ...node.children.map(reactChild), extra);
}

function reactChild(c: Child): ReactNode {
  if (!c) return null;
  return typeof c === "string" ? c : toReact(c);
}

/** One call's card: terminal with its live output and exit status, diff with its hunks, read with
 *  line numbers, search, web or generic. `children`: what to show inside it (its subagent's items). */
export const ToolviewCard = memo(function ToolviewCard(props: { card: CardView; children?: ReactNode }): ReactElement {
  return toReact(cardTree(props.card), props.children);
});

/** A conversation item: a prompt (as typed), an answer or reasoning (sanitized Markdown). */
export const ToolviewMessage = memo(function ToolviewMessage(props: { message: MessageView }): ReactElement {
  return toReact(messageTree(props.message));
});

/** How a prompt's answer is sent: resolves with a note to show (a refusal), or nothing. */
export type Answer = (requestId: string, optionId: string) => Promise<string | undefined> | undefined;

/** A permission prompt: its options as buttons while it waits (with `onAnswer`; without, as
 *  text), then who decided what and when. */
export const ToolviewPermission = memo(function ToolviewPermission(props: {
  permission: PermissionView;
  onAnswer?: Answer;
}): ReactElement {
  const [note, setNote] = useState("");
  const { permission, onAnswer } = props;
  const answer =
    onAnswer &&
    ((optionId: string) => {
      Promise.resolve(onAnswer(permission.requestId, optionId))
        .then((said) => setNote(said ?? ""))
        .catch((e: unknown) => setNote(`not answered: ${e}`));
    });
  return toReact(permissionTree(permission, answer, note));
});

/** A turn boundary. */
export const ToolviewTurn = memo(function ToolviewTurn(props: { turn: TurnView }): ReactElement {
  return toReact(turnTree(props.turn));
});

/** How an inbox's prompt is answered: `(session, request, option)`, resolving to a note to show
 *  (why it was not taken), as `permissionAnswerer` gives one. */
export type InboxAnswer = (
  sessionId: string,
  requestId: string,
  optionId: string,
) => Promise<string | undefined> | undefined;

/** One session of an inbox. */
export const ToolviewSessionRow = memo(function ToolviewSessionRow(props: {
  row: SessionRowView;
  href: string;
  onAnswer?: InboxAnswer;
}): ReactElement {
  const [note, setNote] = useState("");
  const { row, href, onAnswer } = props;
  const answer =
    onAnswer &&
    ((requestId: string, optionId: string) => {
      Promise.resolve(onAnswer(row.sessionId, requestId, optionId))
        .then((said) => setNote(said ?? ""))
        .catch((e: unknown) => setNote(`not answered: ${e}`));
    });
  return toReact(sessionRowTree(row, href, answer, note));
});

/** A fleet of sessions, as the viewer's home page shows it: waiting on you first, each row a link
 *  (`href` makes it from a session id) and, when the token may answer, the prompt's buttons. */
export const ToolviewInbox: FunctionComponent<{
  sessions: readonly SessionRowView[];
  href?: (sessionId: string) => string;
  onAnswer?: InboxAnswer;
}> = ({ sessions, href = (id) => `?session=${encodeURIComponent(id)}`, onAnswer }) =>
  createElement(
    "ul",
    { className: "sessions inbox" },
    sessions.map((row) =>
      createElement(ToolviewSessionRow, { key: row.sessionId, row, href: href(row.sessionId), onAnswer }),
    ),
  );

/** The harness closed the session. */
export const ToolviewEnded = memo(function ToolviewEnded(props: { ended: EndedView }): ReactElement {
  return toReact(endedTree(props.ended));
});

/** The items of a session, in order, a subagent's inside its parent's card. */
export const ToolviewItems: FunctionComponent<{
  items: readonly SessionItem[];
  childrenOf?: (callId: string) => readonly SessionItem[];
  onAnswer?: Answer;
}> = ({ items, childrenOf, onAnswer }) =>
  createElement(
    "div",
    { className: "toolview" },
    items.map((item) => {
      switch (item.kind) {
        case "card": {
          const under = childrenOf?.(item.card.callId) ?? [];
          const group = under.length
            ? createElement(
                "details",
                { className: "children", open: true },
                createElement(
                  "summary",
                  null,
                  subagentSummary(under.flatMap((i) => (i.kind === "card" ? [i.card] : []))),
                ),
                createElement(ToolviewItems, { items: under, childrenOf, onAnswer }),
              )
            : undefined;
          return createElement(ToolviewCard, { key: item.key, card: item.card }, group);
        }
        case "message":
          return createElement(ToolviewMessage, { key: item.key, message: item.message });
        case "permission":
          return createElement(ToolviewPermission, { key: item.key, permission: item.permission, onAnswer });
        case "turn":
          return createElement(ToolviewTurn, { key: item.key, turn: item.turn });
        case "ended":
          return createElement(ToolviewEnded, { key: item.key, ended: item.ended });
        default:
          return newer(item);
      }
    }),
  );
