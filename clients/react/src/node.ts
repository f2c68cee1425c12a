// The cards as a tiny element tree: what `cards.ts` builds once and both renderers draw — the
// DOM one (`dom.ts`: the viewer, the MCP App's view) and the React one (`react.ts`) — so every
// surface shows the same elements, classes and attributes. Text is always a string child: a
// renderer makes it a text node, never markup.

/** A child: an element, a text, or nothing (skipped). */
export type Child = VNode | string | null | undefined | false;

/** An element: its tag, attributes (as HTML names them), children, and a click handler. */
export interface VNode {
  readonly tag: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly Child[];
  /** A button's action. */
  readonly onClick?: () => void;
}

/** `h("div", {class: "x"}, child, …)`. */
export function h(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): VNode {
  return { tag, attrs, children };
}

/** A button that runs `onClick`. */
export function button(attrs: Record<string, string>, label: string, onClick: () => void): VNode {
  return { tag: "button", attrs: { type: "button", ...attrs }, children: [label], onClick };
}
