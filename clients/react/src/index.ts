// `@toolview/react`: toolview's cards as React components, with a CopilotKit activity renderer
// config, an AI SDK part renderer, and a hook that follows a session over gRPC-Web with resume.
// The same drawing without React is `@toolview/react/dom`; the styles are
// `@toolview/react/styles.css` (CSS variables a host app themes).

export { ToolviewPart, ToolviewParts, toolPartCard, type UIMessageLike, type UIPart } from "./ai-sdk.js";
export { subagentSummary } from "./cards.js";
export * from "./convert.js";
export { type ActivityRenderer, CARD_ACTIVITY, PERMISSION_ACTIVITY, toolviewActivityRenderers } from "./copilotkit.js";
export { FleetModel, type FleetSnapshot, fleetOrder } from "./fleet.js";
export {
  type FleetOptions,
  type FollowOptions,
  type FollowState,
  permissionAnswerer,
  type Token,
  type ToolviewSessionState,
  type ToolviewSessionsState,
  useToolviewSession,
  useToolviewSessions,
} from "./hook.js";
export {
  type Answer,
  type InboxAnswer,
  ToolviewCard,
  ToolviewEnded,
  ToolviewInbox,
  ToolviewItems,
  ToolviewMessage,
  ToolviewPermission,
  ToolviewSessionRow,
  ToolviewTurn,
  toReact,
} from "./react.js";
export { type SessionChange, type SessionItem, SessionModel, type SessionSnapshot } from "./session.js";
export type * from "./view.js";
