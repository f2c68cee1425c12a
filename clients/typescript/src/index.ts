// @toolview/client: publish an agent's tool calls and conversation to toolview, and subscribe
// to their renderings. Transports: `@toolview/client/node` (gRPC) and `@toolview/client/web`
// (gRPC-Web); the generated messages are re-exported from here.

export { type AnswerOptions, answerPermission, VIEW_CAPABILITIES } from "./answer.js";
export {
  Client,
  type Item,
  isReset,
  type SessionFilter,
  type SessionStateName,
  type Start,
  type SubscribeOptions,
  Subscription,
  SYNCED,
  type TargetName,
  type WatchOptions,
} from "./client.js";
export {
  BufferFull,
  ClientClosed,
  codeName,
  fieldViolation,
  ToolviewError,
  Undelivered,
  UsageError,
} from "./errors.js";
export { Call, Message, type Role, Session, type Stop, Turn, textBlock, type Usage } from "./events.js";
export * from "./gen/toolview/v1/events_pb.js";
export * from "./gen/toolview/v1/permission_service_pb.js";
export * from "./gen/toolview/v1/presentation_service_pb.js";
export * from "./gen/toolview/v1/rendering_pb.js";
export * from "./gen/toolview/v1/session_service_pb.js";
export * from "./gen/toolview/v1/summary_pb.js";
export * from "./gen/toolview/v1/views_pb.js";
export { eventId, isSessionId, permissionPath, safeId } from "./ids.js";
export {
  allowAlways,
  allowOnce,
  DEFAULT_OPTIONS,
  type Decision,
  denial,
  type OptionKind,
  type PermissionOption,
  type PermissionRequestOptions,
  rejectAlways,
  rejectOnce,
  responder,
} from "./permissions.js";
export type { Failure, PublishOptions } from "./publisher.js";
