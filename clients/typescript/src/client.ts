// The client: publishing, resuming subscriptions, and the unary calls, over any Connect
// transport (`@toolview/client/node` for gRPC over HTTP/2, `@toolview/client/web` for gRPC-Web).
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, createClient, type Client as RpcClient, type Transport } from "@connectrpc/connect";
import { ClientClosed, RESUMABLE, ToolviewError } from "./errors.js";
import {
  type Arguments,
  argumentsJson,
  contentOf,
  Ledger,
  type Meta,
  metaJson,
  type Result,
  Session,
} from "./events.js";
import type { ToolEvent } from "./gen/toolview/v1/events_pb.js";
import { PermissionService } from "./gen/toolview/v1/permission_service_pb.js";
import { PresentationService, type PresentResponse } from "./gen/toolview/v1/presentation_service_pb.js";
import {
  type Capabilities,
  type CapabilitiesSchema,
  type Cursor,
  CursorSchema,
  type RenderedUpdate,
  Target,
} from "./gen/toolview/v1/rendering_pb.js";
import {
  type GetSessionResponse,
  type Reset,
  SessionService,
  type SubscribeRequest,
  SubscribeRequestSchema,
} from "./gen/toolview/v1/session_service_pb.js";
import { SessionState } from "./gen/toolview/v1/summary_pb.js";
import { AWAIT_ATTEMPT_MS, type Decision, decisionOf, type PermissionRequest } from "./permissions.js";
import { Backoff, Publisher, type PublishOptions } from "./publisher.js";

/** A rendering target. */
export type TargetName = "view" | "acp" | "ag_ui" | "markdown" | "ansi" | "ai_sdk";
const TARGETS: Record<TargetName, Target> = {
  view: Target.VIEW,
  acp: Target.ACP,
  ag_ui: Target.AG_UI,
  markdown: Target.MARKDOWN,
  ansi: Target.ANSI,
  ai_sdk: Target.AI_SDK,
};

/** Where a subscription starts: replay then live, from now on, or after a cursor. */
export type Start = "beginning" | "live" | Cursor;

export interface SubscribeOptions {
  target?: TargetName;
  capabilities?: MessageInitShape<typeof CapabilitiesSchema>;
  start?: Start;
  /** Reconnect and resume after transient failures (true). */
  reconnect?: boolean;
  /** Ends the subscription. */
  signal?: AbortSignal;
  /** How long (ms) a subscription keeps reconnecting without reaching the server before it
   * throws the last failure; unset: as long as it takes. */
  reconnectDeadlineMs?: number;
}

/** What a subscription yields: a rendered update, or a reset before the updates that rebuild. */
export type Item = RenderedUpdate | Reset;

/** Whether an item is a `Reset`. */
export function isReset(item: Item): item is Reset {
  return item.$typeName === "toolview.v1.Reset";
}

// A pause that an abort cuts short (and that leaves no listener behind).
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });

async function unary<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw ToolviewError.from(e);
  }
}

/** A subscription: an async iterable of updates that keeps the last cursor and, after a
 * transient failure or a server restart, reconnects and resumes after it. */
export class Subscription implements AsyncIterable<Item> {
  /** The last update's cursor: where the subscription resumes. */
  cursor: Cursor | undefined;
  /** Reconnections so far. */
  reconnects = 0;
  private start: Start;
  private readonly abort = new AbortController();

  constructor(
    private readonly sessions: RpcClient<typeof SessionService>,
    private readonly request: SubscribeRequest,
    start: Start,
    private readonly reconnect: boolean,
    private readonly refreshableToken: boolean,
    signal?: AbortSignal,
    private readonly reconnectDeadlineMs?: number,
  ) {
    this.start = start;
    signal?.addEventListener("abort", () => this.close());
  }

  /** Ends the subscription. */
  close(): void {
    this.abort.abort();
  }

  private nextRequest(): SubscribeRequest {
    const start: MessageInitShape<typeof SubscribeRequestSchema>["start"] =
      this.cursor !== undefined
        ? { case: "after", value: this.cursor }
        : this.start === "beginning"
          ? { case: "fromBeginning", value: {} }
          : this.start === "live"
            ? { case: "liveOnly", value: {} }
            : { case: "after", value: this.start };
    const { sessionId, target, capabilities } = this.request;
    return create(SubscribeRequestSchema, { sessionId, target, capabilities, start });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    const backoff = new Backoff(50, 2_000);
    // When the failures since the last item began.
    let failingSince: number | undefined;
    while (!this.abort.signal.aborted) {
      let error: ToolviewError | undefined;
      let progressed = false;
      try {
        for await (const response of this.sessions.subscribe(this.nextRequest(), { signal: this.abort.signal })) {
          progressed = true;
          failingSince = undefined;
          const item = response.item;
          if (item.case === "update") {
            this.cursor = item.value.cursor;
            backoff.reset();
            yield item.value;
          } else if (item.case === "reset") {
            // Resume from what the server keeps, never from the lost cursor.
            this.cursor = undefined;
            this.start = "beginning";
            yield item.value;
          }
        }
      } catch (e) {
        error = ToolviewError.from(e);
      }
      if (this.abort.signal.aborted) return;
      // The stream ended: a subscription has no end of its own, so the server went away.
      if (!this.reconnect) {
        if (error) throw error;
        return;
      }
      // The token expired under a live stream (the server ends it then): a token function gives
      // a fresh one. One refused before anything arrived is not tried again.
      const freshToken = error?.code === Code.Unauthenticated && this.refreshableToken && progressed;
      if (error && !freshToken && (error.code === undefined || !RESUMABLE.has(error.code))) throw error;
      failingSince ??= Date.now();
      if (this.reconnectDeadlineMs !== undefined && Date.now() - failingSince >= this.reconnectDeadlineMs) {
        throw error ?? new ToolviewError("the subscription could not reconnect in time", Code.Unavailable);
      }
      this.reconnects += 1;
      await sleep(backoff.next(), this.abort.signal);
    }
  }
}

/** A connection to a toolview server. */
export class Client {
  private readonly sessions: RpcClient<typeof SessionService>;
  private readonly presentation: RpcClient<typeof PresentationService>;
  private readonly permissions: RpcClient<typeof PermissionService>;
  readonly publisher: Publisher;
  private readonly ledger = new Ledger();
  private closed = false;

  private readonly refreshableToken: boolean;

  /** `refreshableToken`: the transport asks a function for its token on every call, so a
   * subscription whose token expired resumes with a fresh one (`connect` sets it). */
  constructor(transport: Transport, options: { publish?: PublishOptions; refreshableToken?: boolean } = {}) {
    this.refreshableToken = options.refreshableToken ?? false;
    this.sessions = createClient(SessionService, transport);
    this.presentation = createClient(PresentationService, transport);
    this.permissions = createClient(PermissionService, transport);
    this.publisher = new Publisher(
      (request, timeoutMs) => this.sessions.publish(request, { timeoutMs }),
      options.publish,
    );
  }

  /** The publishing side of a session. */
  session(sessionId: string): Session {
    return new Session(
      (event: ToolEvent) => this.publisher.put(event),
      sessionId,
      this.ledger,
      (request) => this.ask(request),
    );
  }

  /** Publishes a request, then waits for its decision, asking again after a failure a retry
   * can fix until the request's expiry (and a grace) has passed. */
  private async ask(request: PermissionRequest): Promise<Decision> {
    this.open();
    await this.publisher.put(request.event);
    await this.publisher.flush();
    const giveUp = Date.now() + request.giveUpAfterMs();
    const backoff = new Backoff(50, 2_000);
    for (;;) {
      const left = giveUp - Date.now();
      try {
        const response = await this.permissions.awaitPermission(
          { sessionId: request.event.sessionId, requestId: request.requestId },
          { timeoutMs: Math.max(100, Math.min(AWAIT_ATTEMPT_MS, left)) },
        );
        if (!response.resolution) throw new ToolviewError("AwaitPermission: no resolution", Code.Internal);
        return request.decision(response.resolution);
      } catch (e) {
        const error = ToolviewError.from(e);
        const retry =
          error.code === Code.Unavailable || error.code === Code.DeadlineExceeded || error.code === Code.Canceled;
        if (!retry || left <= 0) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, backoff.next()));
    }
  }

  /** Answers a request (the `approve` right): whether this answer decided it, and the decision
   * (this one, or the one that came first). `via` names the surface (`grpc` when absent). */
  async respondPermission(
    sessionId: string,
    requestId: string,
    optionId: string,
    options: { reason?: string; via?: string } = {},
  ): Promise<{ won: boolean; decision: Decision }> {
    this.open();
    const r = await unary(() =>
      this.permissions.respondPermission({
        sessionId,
        requestId,
        optionId,
        reason: options.reason ?? "",
        via: options.via ?? "",
      }),
    );
    if (!r.resolution) throw new ToolviewError("RespondPermission: no resolution", Code.Internal);
    return { won: r.won, decision: decisionOf(r.resolution) };
  }

  /** Withdraws a pending request (the harness stopped waiting). */
  async withdrawPermission(
    sessionId: string,
    requestId: string,
    reason = "",
  ): Promise<{ won: boolean; decision: Decision }> {
    this.open();
    const r = await unary(() => this.permissions.withdrawPermission({ sessionId, requestId, reason }));
    if (!r.resolution) throw new ToolviewError("WithdrawPermission: no resolution", Code.Internal);
    return { won: r.won, decision: decisionOf(r.resolution) };
  }

  /** Refuses a call on a closed client. */
  private open(): void {
    if (this.closed) throw new ClientClosed();
  }

  /** Resolves once every event published so far is acknowledged; rejects with the first
   * refusal (`Undelivered` when `timeoutMs` passes first). */
  flush(timeoutMs?: number): Promise<void> {
    return this.publisher.flush(timeoutMs);
  }

  /** Flushes and stops publishing; events unacknowledged after `timeoutMs` are given up. */
  close(timeoutMs = 30_000): Promise<void> {
    this.closed = true;
    return this.publisher.flush(timeoutMs, true);
  }

  /** A session's updates for a target (`view` by default), from `start` (`beginning`). */
  async subscribe(sessionId: string, options: SubscribeOptions = {}): Promise<Subscription> {
    this.open();
    let start = options.start ?? "beginning";
    if (start === "live") {
      // Pinned to the head as it is now, so a reconnection before the first update misses
      // nothing published meanwhile.
      const head = await this.head(sessionId);
      start = head ?? "beginning";
    }
    const request = create(SubscribeRequestSchema, {
      sessionId,
      target: TARGETS[options.target ?? "view"],
      capabilities: options.capabilities,
    });
    return new Subscription(
      this.sessions,
      request,
      start,
      options.reconnect ?? true,
      this.refreshableToken,
      options.signal,
      options.reconnectDeadlineMs,
    );
  }

  private async head(sessionId: string): Promise<Cursor | undefined> {
    try {
      const info = await this.getSession(sessionId);
      return info.headOffset > 0n ? create(CursorSchema, { offset: info.headOffset, epoch: info.epoch }) : undefined;
    } catch (e) {
      if (e instanceof ToolviewError && e.code === Code.NotFound) return undefined;
      throw e;
    }
  }

  /** A session's epoch, head, call count, times, title and cwd. */
  getSession(sessionId: string): Promise<GetSessionResponse> {
    if (this.closed) return Promise.reject(new ClientClosed());
    return unary(() => this.sessions.getSession({ sessionId }));
  }

  /** Every session the caller may read, in id order, fetched a page at a time, each with its
   *  `summary` (state, prompts waiting, activity). The filters keep only the sessions that match
   *  (docs/sessions.md); a number is the page size, as before. */
  async *listSessions(filter: number | SessionFilter = {}): AsyncIterable<GetSessionResponse> {
    this.open();
    const f = typeof filter === "number" ? { pageSize: filter } : filter;
    const request = {
      pageSize: f.pageSize ?? 0,
      states: (f.states ?? []).map(stateOf),
      titlePrefix: f.titlePrefix ?? "",
      cwdPrefix: f.cwdPrefix ?? "",
      updatedSince: f.updatedSince ? timestampFromDate(f.updatedSince) : undefined,
    };
    let pageToken = "";
    do {
      const page = await unary(() => this.sessions.listSessions({ ...request, pageToken }));
      yield* page.sessions;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }

  /** The fleet, live (docs/sessions.md): the first page of the sessions the filters keep, then
   *  `SYNCED`, then a session again each time its summary changes (one leaving the filters comes
   *  once more, with its new state). With `updatedSince`, the first page is the sessions changed
   *  since, in any state. After a transient failure it reconnects and resumes so: the sessions
   *  changed since shortly before the latest it yielded (those that left the filters meanwhile
   *  too), then `SYNCED`. `signal` ends it. */
  async *watchSessions(options: WatchOptions = {}): AsyncIterable<GetSessionResponse | typeof SYNCED> {
    this.open();
    const request = {
      pageSize: options.pageSize ?? 0,
      states: (options.states ?? []).map(stateOf),
      titlePrefix: options.titlePrefix ?? "",
      cwdPrefix: options.cwdPrefix ?? "",
      updatedSince: options.updatedSince ? timestampFromDate(options.updatedSince) : undefined,
    };
    // The server's time of the latest change yielded: where a reconnect resumes from.
    let latest = 0;
    const signal = options.signal ?? new AbortController().signal;
    const backoff = new Backoff(50, 2_000);
    while (!signal.aborted) {
      try {
        for await (const response of this.sessions.watchSessions(request, { signal })) {
          backoff.reset();
          if (response.item.case === "synced") yield SYNCED;
          else if (response.item.case === "session") {
            const at = response.item.value.updatedAt;
            if (at) latest = Math.max(latest, timestampDate(at).getTime());
            yield response.item.value;
          }
        }
      } catch (e) {
        const error = ToolviewError.from(e);
        if (signal.aborted) return;
        if (options.reconnect === false || error.code === undefined || !RESUMABLE.has(error.code)) throw error;
      }
      if (options.reconnect === false) return;
      // A change the server's throttle held goes out after later ones: resume a little earlier.
      if (latest) request.updatedSince = timestampFromMs(latest - RESUME_MARGIN_MS);
      await sleep(backoff.next(), signal);
    }
  }

  /** The built-in presenters' views for one call (and its result, when given). */
  present(
    tool: string,
    args?: Arguments,
    result?: Result,
    options: { isError?: boolean; meta?: Meta } = {},
  ): Promise<PresentResponse> {
    if (this.closed) return Promise.reject(new ClientClosed());
    const withResult = result !== undefined || options.isError || options.meta !== undefined;
    return unary(() =>
      this.presentation.present({
        toolName: tool,
        argumentsJson: argumentsJson(args),
        result: withResult
          ? { content: contentOf(result), isError: options.isError ?? false, metaJson: metaJson(options.meta) }
          : undefined,
      }),
    );
  }

  /** Events rendered for a target without a session, one update per event. */
  async render(
    events: ToolEvent[],
    target: TargetName = "view",
    capabilities?: MessageInitShape<typeof CapabilitiesSchema>,
    sessionCwd = "",
  ): Promise<RenderedUpdate[]> {
    this.open();
    const response = await unary(() =>
      this.presentation.render({ events, target: TARGETS[target], capabilities, sessionCwd }),
    );
    return response.updates;
  }
}

export type { Capabilities };

/** What `listSessions` keeps: sessions in one of `states`, whose title or working directory
 *  starts so, updated at or after `updatedSince`. */
export interface SessionFilter {
  pageSize?: number;
  states?: (SessionStateName | SessionState)[];
  titlePrefix?: string;
  cwdPrefix?: string;
  updatedSince?: Date;
}

/** A session state by its name in docs/sessions.md. */
export type SessionStateName = "requires_action" | "running" | "failed" | "idle" | "ended";

const STATES: Record<SessionStateName, SessionState> = {
  requires_action: SessionState.REQUIRES_ACTION,
  running: SessionState.RUNNING,
  failed: SessionState.FAILED,
  idle: SessionState.IDLE,
  ended: SessionState.ENDED,
};

function stateOf(state: SessionStateName | SessionState): SessionState {
  if (typeof state === "number") return state;
  const known = STATES[state];
  if (known === undefined) throw new RangeError(`state: one of ${Object.keys(STATES).join(", ")}, not ${state}`);
  return known;
}

/** A fleet watch's marker: every session of its first page has come; what follows is live. */
export const SYNCED: unique symbol = Symbol("toolview.synced");

/** What `watchSessions` watches (the filters of `listSessions`, but time), and how. */
/** How far before the latest change a watch yielded it resumes (the server's fleet throttle holds
 *  a change half a second by default). */
const RESUME_MARGIN_MS = 2_000;

export interface WatchOptions {
  /** Resume: the first page is the sessions changed at or after this (in any state). */
  updatedSince?: Date;
  pageSize?: number;
  states?: (SessionStateName | SessionState)[];
  titlePrefix?: string;
  cwdPrefix?: string;
  /** Reconnect after a transient failure (default true). */
  reconnect?: boolean;
  /** Ends the watch. */
  signal?: AbortSignal;
}
