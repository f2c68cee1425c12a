// What a page that shows sessions shares: the capabilities a UI that draws every card asks for,
// and an answer to a permission request over the HTTP endpoint (the one a page on the server's
// origin, or a `--cors-origin`, may send).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CapabilitiesSchema } from "./gen/toolview/v1/rendering_pb.js";
import { permissionPath } from "./ids.js";

/** What a UI that draws every card asks for (the viewer, the MCP App view, `useToolviewSession`). */
export const VIEW_CAPABILITIES: MessageInitShape<typeof CapabilitiesSchema> = Object.freeze({
  terminal: true,
  diff: true,
  read: true,
  search: true,
  web: true,
  outputAppends: true,
  reasoning: true,
});

/** Options of `answerPermission`. */
export interface AnswerOptions {
  /** A bearer token with the `approve` right, when the server checks tokens. */
  token?: string;
  /** The surface that answers, as the decision records it (`react`, `viewer`, …). */
  via?: string;
  /** Why, as the person said. */
  reason?: string;
}

/** Answers `requestId` of `session` with `optionId` (`POST /permissions/{session}/{request}` at
 *  `baseUrl`, the server's origin). Resolves with nothing when the answer was taken — or when the
 *  request was decided already, which everyone then sees as an update — and with why not
 *  otherwise (a token without the right, a bad id, a refusal). Never throws. */
export async function answerPermission(
  baseUrl: string,
  session: string,
  requestId: string,
  optionId: string,
  options: AnswerOptions = {},
): Promise<string | undefined> {
  let url: string;
  try {
    // Refuses ids with `.`/`..` segments, which the URL parser would resolve to another session.
    url = `${baseUrl.replace(/\/$/, "")}${permissionPath(session, requestId)}`;
  } catch (e) {
    return `not answered: ${e instanceof Error ? e.message : String(e)}`;
  }
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body: Record<string, string> = { optionId, via: options.via ?? "web" };
  if (options.reason) body.reason = options.reason;
  try {
    const r = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    if (r.status === 403) return "this token may not answer (it needs the approve right)";
    // 409, 410: decided already (by someone else, or the expiry): the decision arrives as an update.
    if (r.ok || r.status === 409 || r.status === 410) return undefined;
    const refusal = (await r.json().catch(() => ({}))) as { error?: string };
    return `not answered: ${refusal.error ?? r.status}`;
  } catch (e) {
    return `not answered: ${e instanceof Error ? e.message : String(e)}`;
  }
}
