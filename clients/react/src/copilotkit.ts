// CopilotKit: renderers for the activity messages toolview's AG-UI endpoint sends (`toolview.card`
// per call, `toolview.permission` per prompt), in the shape of CopilotKit's
// `ReactActivityMessageRenderer` — pass them to `<CopilotKit renderActivityMessages={…}>`. Their
// `content` schemas are Standard Schema objects written out here, so the package needs no zod.

import { createElement, type ReactElement } from "react";
import { type Answer, ToolviewCard, ToolviewPermission } from "./react.js";
import type { CardView, PermissionView } from "./view.js";

/** The AG-UI activity type of a call's card. */
export const CARD_ACTIVITY = "toolview.card";
/** The AG-UI activity type of a permission prompt. */
export const PERMISSION_ACTIVITY = "toolview.permission";

/** A Standard Schema (v1) that accepts an object whose `fields` are strings. */
interface Schema<T> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { value: T } | { issues: { message: string; path?: PropertyKey[] }[] };
    readonly types?: { input: unknown; output: T };
  };
}

function shape<T>(fields: readonly string[]): Schema<T> {
  return {
    "~standard": {
      version: 1,
      vendor: "toolview",
      validate: (value) => {
        if (typeof value !== "object" || value === null) return { issues: [{ message: "not an object" }] };
        const missing = fields.find((f) => typeof (value as Record<string, unknown>)[f] !== "string");
        return missing ? { issues: [{ message: `${missing}: not a string`, path: [missing] }] } : { value: value as T };
      },
    },
  };
}

/** One of CopilotKit's activity renderers (its `ReactActivityMessageRenderer`). */
export interface ActivityRenderer<T> {
  activityType: string;
  agentId?: string;
  content: Schema<T>;
  render: (props: { activityType: string; content: T }) => ReactElement;
}

/** The renderers of toolview's activities: a card per call (its live output included: AG-UI
 *  appends it as `chunks`), and each permission prompt (with buttons when `answer` is given,
 *  e.g. `permissionAnswerer(url, session)`). `agentId` scopes them to one agent. */
export function toolviewActivityRenderers(
  options: { answer?: Answer; agentId?: string } = {},
): [ActivityRenderer<CardView>, ActivityRenderer<PermissionView>] {
  const scope = options.agentId === undefined ? {} : { agentId: options.agentId };
  return [
    {
      activityType: CARD_ACTIVITY,
      ...scope,
      content: shape<CardView>(["callId", "status", "streamed"]),
      render: ({ content }) => createElement(ToolviewCard, { card: content }),
    },
    {
      activityType: PERMISSION_ACTIVITY,
      ...scope,
      content: shape<PermissionView>(["requestId", "title", "state"]),
      render: ({ content }) => createElement(ToolviewPermission, { permission: content, onAnswer: options.answer }),
    },
  ];
}
