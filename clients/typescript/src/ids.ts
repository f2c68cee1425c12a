// Ids: the server's id rule, and event ids derived from what an event is about, so that a
// retried publish (or a harness replaying its work) is a duplicate, never a second event.
import { UsageError } from "./errors.js";

/** An event, call, message or turn id: 1–128 characters of `[A-Za-z0-9._:-]`. */
export const ID_RULE = /^[A-Za-z0-9._:-]{1,128}$/;
const MAX_ID = 128;

// FNV-1a, 64 bits as two 32-bit halves: a short stable digest with no dependency (ids need
// spreading, not secrecy), the same in Node and browsers.
function digest(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (const byte of new TextEncoder().encode(text)) {
    h1 = Math.imul(h1 ^ byte, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ byte, 0x811c9dc5) >>> 0;
  }
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0");
}

/** `raw` when it follows the id rule; otherwise a readable id made from it that does. */
export function safeId(raw: string): string {
  if (ID_RULE.test(raw)) return raw;
  const readable = raw.replace(/[^A-Za-z0-9._:-]/g, "-").slice(0, MAX_ID - 18);
  return readable ? `${readable}.${digest(raw)}` : `id.${digest(raw)}`;
}

/** A session id: `/`-separated segments of the id rule, none of them `.` or `..`, at most 128
 *  characters in all (the server refuses the rest). */
export function isSessionId(id: string): boolean {
  return id.length <= MAX_ID && id.split("/").every((s) => ID_RULE.test(s) && s !== "." && s !== "..");
}

/** The path that answers a permission request: `/permissions/{session}/{request}`, each segment
 *  encoded. Throws for ids the server would refuse: a `.` or `..` segment would be resolved by the
 *  browser's URL parser (even encoded) and reach another session's request. */
export function permissionPath(session: string, requestId: string): string {
  if (!isSessionId(session)) throw new UsageError(`not a session id: ${JSON.stringify(session)}`);
  if (!ID_RULE.test(requestId) || requestId === "." || requestId === "..")
    throw new UsageError(`not a request id: ${JSON.stringify(requestId)}`);
  return `/permissions/${session.split("/").map(encodeURIComponent).join("/")}/${encodeURIComponent(requestId)}`;
}

/** A fresh random id for a subject the caller did not name. */
export function newId(prefix: string): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The event id for a subject and its step: `eventId("call", "c1", 3)` is `call:c1:3`. */
export function eventId(...parts: (string | number)[]): string {
  const text = parts.join(":");
  return text.length <= MAX_ID ? text : `h:${digest(text)}${digest(`${text}#`)}`;
}
