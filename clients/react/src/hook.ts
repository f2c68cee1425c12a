// `useToolviewSession`: a session followed directly over gRPC-Web with `@toolview/client`'s
// resuming subscription (after a restart or a dropped connection it goes on after the last cursor
// it was shown: no card lost or shown twice), folded by `SessionModel` and read through
// `useSyncExternalStore` (as the AI SDK's `useChat` reads its chat): each render sees one
// immutable snapshot, so concurrent rendering cannot tear and memoized consumers see changes.

import { answerPermission, type SessionStateName, SYNCED, VIEW_CAPABILITIES } from "@toolview/client";
import { connect } from "@toolview/client/web";
import { useEffect, useState, useSyncExternalStore } from "react";
import { FleetModel, type FleetSnapshot } from "./fleet.js";
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
  const { token } = options;
  const { snapshot, state, error } = useFollowed(
    () => new SessionModel(),
    async (model, signal, live) => {
      const client = connect(baseUrl, { token });
      const subscription = await client.subscribe(session, {
        target: "view",
        capabilities: VIEW_CAPABILITIES,
        start: "beginning",
        signal,
      });
      for await (const item of subscription) {
        if (signal.aborted) return;
        live();
        model.apply(item);
      }
    },
    [baseUrl, session, token],
  );
  return { items: snapshot.items, childrenOf: snapshot.childrenOf, cwd: snapshot.cwd, state, error };
}

/** Answers permission prompts with `POST /permissions/{session}/{request}` (`@toolview/client`'s
 *  `answerPermission`; the token needs the `approve` right); the note it resolves with says why
 *  an answer was not taken. */
export function permissionAnswerer(
  baseUrl: string,
  session: string,
  options: { token?: string; via?: string } = {},
): Answer {
  return (requestId, optionId) =>
    answerPermission(baseUrl, session, requestId, optionId, { token: options.token, via: options.via ?? "react" });
}

/** Options of `useToolviewSessions`: a token, and the watch's filters. */
export interface FleetOptions extends FollowOptions {
  /** Only sessions in these states. */
  states?: readonly SessionStateName[];
  titlePrefix?: string;
  cwdPrefix?: string;
  /** Sessions in the first page (the server's default 100; at most 1,000). */
  pageSize?: number;
}

/** What `useToolviewSessions` returns: the fleet in order, and what the watch is doing. */
export interface ToolviewSessionsState extends FleetSnapshot {
  state: FollowState;
  /** Why it stopped, when it failed. */
  error?: string;
}

/** Follows the fleet on the toolview server at `baseUrl` (`WatchSessions` over gRPC-Web,
 *  reconnecting after a transient failure): every session the token may read that the filters
 *  admit, waiting on you first, each row replaced as its summary changes. */
export function useToolviewSessions(baseUrl: string, options: FleetOptions = {}): ToolviewSessionsState {
  const { token, titlePrefix, cwdPrefix, pageSize } = options;
  // The states as one value: a new array each render would watch again.
  const states = (options.states ?? []).join(",");
  const { snapshot, state, error } = useFollowed(
    () => new FleetModel(),
    async (model, signal, live) => {
      const client = connect(baseUrl, { token });
      const watch = client.watchSessions({
        states: states ? (states.split(",") as SessionStateName[]) : [],
        titlePrefix,
        cwdPrefix,
        pageSize,
        signal,
      });
      for await (const item of watch) {
        if (signal.aborted) return;
        if (item === SYNCED) live();
        model.apply(item === SYNCED ? "synced" : item);
      }
    },
    [baseUrl, token, states, titlePrefix, cwdPrefix, pageSize],
  );
  return { ...snapshot, state, error };
}

/** A model the hooks fold a stream into: its snapshots, and who listens to them. */
interface Followed {
  subscribe: (listener: () => void) => () => void;
  getSnapshot: () => unknown;
}

/** Runs `follow` into a new model (`make`) whenever `deps` change, until they change again or the
 *  component goes: the model's snapshot (read through `useSyncExternalStore`: one consistent state
 *  per render) and what the follow is doing (`live()` once it is). */
function useFollowed<M extends Followed>(
  make: () => M,
  follow: (model: M, signal: AbortSignal, live: () => void) => Promise<void>,
  deps: readonly unknown[],
): { snapshot: ReturnType<M["getSnapshot"]>; state: FollowState; error?: string } {
  // A new model for each follow (the effect makes it): its snapshots are the state.
  const [model, setModel] = useState(make);
  const snapshot = useSyncExternalStore(model.subscribe, model.getSnapshot, model.getSnapshot);
  const [state, setState] = useState<FollowState>("connecting");
  const [error, setError] = useState<string>();
  useEffect(() => {
    const abort = new AbortController();
    const next = make();
    setModel(next);
    setState("connecting");
    setError(undefined);
    follow(next, abort.signal, () => setState("live"))
      .then(() => {
        if (!abort.signal.aborted) setState("ended");
      })
      .catch((e: unknown) => {
        if (abort.signal.aborted) return;
        setState("error");
        setError(String(e));
      });
    return () => abort.abort();
    // biome-ignore lint/correctness/useExhaustiveDependencies: `deps` are the callers' inputs.
  }, deps);
  return { snapshot: snapshot as ReturnType<M["getSnapshot"]>, state, error };
}
