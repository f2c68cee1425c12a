// A type-level test of the package's public declarations (`dist/*.d.ts`, through the package's
// own name and `exports`): what a UI developer writes compiles, and misuse does not. Checked by
// `npm run typecheck` (`tsc --noEmit`), never run.
import {
  type ActivityRenderer,
  type CardView,
  type PermissionView,
  permissionAnswerer,
  type SessionItem,
  ToolviewCard,
  ToolviewItems,
  ToolviewParts,
  toolviewActivityRenderers,
  type UIMessageLike,
  useToolviewSession,
} from "@toolview/react";
import { cardTree, renderCard, type VNode } from "@toolview/react/dom";
import { createElement, type ReactElement } from "react";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_: T): void {}

const card: CardView = {
  callId: "c1",
  toolName: "bash",
  status: "completed",
  call: { card: "terminal", title: "ls" },
  result: { card: "terminal", output: "a\n", exitCode: 0 },
  streamed: "",
};
// @ts-expect-error: a status is one of the four names
const bad: CardView = { ...card, status: "done" };
// @ts-expect-error: a search result names its shape
const noShape: CardView["result"] = { card: "search", truncated: false, total: 0 };
void bad;
void noShape;

export function Page(): ReactElement {
  const { items, childrenOf, state } = useToolviewSession("https://toolview.example", "s1", { token: () => "jwt" });
  expectType<Equal<typeof items, readonly SessionItem[]>>(true);
  expectType<Equal<typeof state, "connecting" | "live" | "ended" | "error">>(true);
  const onAnswer = permissionAnswerer("https://toolview.example", "s1", { token: "jwt" });
  return createElement(ToolviewItems, { items, childrenOf, onAnswer });
}

// CopilotKit's `renderActivityMessages` takes the renderers as they are.
const [cards, prompts]: [ActivityRenderer<CardView>, ActivityRenderer<PermissionView>] = toolviewActivityRenderers();
expectType<Equal<typeof cards.activityType, string>>(true);
void prompts;

export function Chat(props: { message: UIMessageLike }): ReactElement {
  return createElement(
    "div",
    null,
    createElement(ToolviewParts, { message: props.message }),
    createElement(ToolviewCard, { card }),
  );
}

// Without React: the same tree, drawn into the DOM.
const tree: VNode = cardTree(card);
const element: HTMLElement = renderCard(card);
void tree;
void element;
