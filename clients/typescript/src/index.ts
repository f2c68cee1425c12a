// @toolview/client: publish an agent's tool calls and conversation to toolview, and subscribe
// to their renderings. Transports: `@toolview/client/node` (gRPC) and `@toolview/client/web`
// (gRPC-Web); the generated messages are re-exported from here.
export { Client, Subscription, isReset, type Item, type Start, type SubscribeOptions, type TargetName } from "./client.js";
export { Call, Message, Session, Turn, textBlock, type Role, type Stop, type Usage } from "./events.js";
export { BufferFull, ToolviewError, Undelivered, codeName, fieldViolation } from "./errors.js";
export { eventId, safeId } from "./ids.js";
export type { Failure, PublishOptions } from "./publisher.js";
export * from "./gen/toolview/v1/events_pb.js";
export * from "./gen/toolview/v1/presentation_service_pb.js";
export * from "./gen/toolview/v1/rendering_pb.js";
export * from "./gen/toolview/v1/session_service_pb.js";
export * from "./gen/toolview/v1/views_pb.js";
