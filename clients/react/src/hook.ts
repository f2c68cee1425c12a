// `useToolviewSession`: a session followed directly over gRPC-Web with `@toolview/client`'s
// resuming subscription (after a restart or a dropped connection it goes on after the last cursor
// it was shown: no card lost or shown twice), folded into items by `SessionModel`.

import { permissionPath } from "@toolview/client";
import { connect } from "@toolview/client/web";
import { useEffect, useState } from "react";
import type { Answer } from "./react.js";
import { type SessionItem, SessionModel } from "./session.js";

/** What the subscription is doing. */
export type FollowState = "connecting" | "live" | "ended" | "error";

/** What `useToolviewSession` returns. */
export interface ToolviewSessionState {
  /** The items at the top, in order. */
  items: readonly SessionItem[];
  /** A card's subagent items. */
  childrenOf: (callId: string) => readonly SessionItem[];
  /** The session's working directory, once it said. */
  cwd: string;
  state: FollowState;
  /** Why it stopped, when it failed. */
  error?: string;
}

/** A bearer token, or a function that returns a fresh one. */
export type Token = NonNullable<Parameters<typeof connect>[1]>["token"];

/** Options of `useToolviewSession`. */
export interface FollowOptions {
  /** A bearer token (or a function that returns a fresh one) when the server checks tokens. A
   *  new token subscribes again: keep a function's identity across renders (`useCallback`). */
  token?: Token;
}

/** Follows `session` on the toolview server at `baseUrl` (its gRPC-Web origin, e.g.
 *  `https://toolview.example.com`): the session from its beginning, then live. */
export function useToolviewSession(
  baseUrl: string,
  session: string,
  options: FollowOptions = {},
): ToolviewSessionState {
  const [model, setModel] = useState(() => new SessionModel());
  const [, setVersion] = useState(0);
  const [state, setState] = useState<FollowState>("connecting");
  const [error, setError] = useState<string>();
  const { token } = options;
  useEffect(() => {
    const abort = new AbortController();
    const next = new SessionModel();
    setModel(next);
    setState("connecting");
    setError(undefined);
    (async () => {
      const client = connect(baseUrl, { token });
      const subscription = await client.subscribe(session, {
        target: "view",
        capabilities: {
          terminal: true,
          diff: true,
          read: true,
          search: true,
          web: true,
          outputAppends: true,
          reasoning: true,
        },
        start: "beginning",
        signal: abort.signal,
      });
      for await (const item of subscription) {
        if (abort.signal.aborted) return;
        setState("live");
        if (next.apply(item)) setVersion((v) => v + 1);
      }
      if (!abort.signal.aborted) setState("ended");
    })().catch((e: unknown) => {
      if (abort.signal.aborted) return;
      setState("error");
      setError(String(e));
    });
    return () => abort.abort();
  }, [baseUrl, session, token]);
  return { items: model.items, childrenOf: (id) => model.childrenOf(id), cwd: model.cwd, state, error };
}

/** Answers permission prompts with `POST /permissions/{session}/{request}` (the token needs the
 *  `approve` right); the note it resolves with says why an answer was not taken. */
export function permissionAnswerer(
  baseUrl: string,
  session: string,
  options: { token?: string; via?: string } = {},
): Answer {
  return async (requestId, optionId) => {
    let path: string;
    try {
      // Refuses ids with `.`/`..` segments, which the URL parser would resolve to another session.
      path = `${baseUrl.replace(/\/$/, "")}${permissionPath(session, requestId)}`;
    } catch (e) {
      return `not answered: ${e instanceof Error ? e.message : String(e)}`;
    }
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const r = await fetch(path, {
      method: "POST",
      headers,
      body: JSON.stringify({ optionId, via: options.via ?? "react" }),
    });
    if (r.status === 403) return "this token may not answer (it needs the approve right)";
    // 409, 410: decided already (by someone else, or the expiry): the decision arrives as an update.
    if (!r.ok && r.status !== 409 && r.status !== 410)
      return `not answered: ${((await r.json()) as { error?: string }).error ?? r.status}`;
    return undefined;
  };
}
