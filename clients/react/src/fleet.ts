// A fleet of sessions as a fleet watch's items come (`WatchSessions`), without I/O or React: each
// session's latest row replaces the one before, in the order a person works through them —
// waiting on a person first (the longest waiting first), then running, failed, idle and ended.
// `useToolviewSessions` reads its immutable snapshots through `useSyncExternalStore`,
// `<ToolviewInbox>` draws them, and the viewer's home page patches its list from them.

import type { GetSessionResponse } from "@toolview/client";
import { sessionRowFromProto } from "./convert.js";
import type { SessionRowView } from "./view.js";

/** What a fleet view shows: the sessions in order, and whether the first page is complete. */
export interface FleetSnapshot {
  readonly sessions: readonly SessionRowView[];
  /** The first page has come: what follows is live. */
  readonly synced: boolean;
}

const RANK: Record<SessionRowView["state"], number> = {
  requires_action: 0,
  running: 1,
  failed: 2,
  idle: 3,
  ended: 4,
  unknown: 5,
};

/** Waiting longest first among the waiting; most recently changed first among the rest. */
export function fleetOrder(a: SessionRowView, b: SessionRowView): number {
  const rank = RANK[a.state] - RANK[b.state];
  if (rank) return rank;
  const waited = a.state === "requires_action" ? (a.prompt?.requestedAtMs ?? 0) - (b.prompt?.requestedAtMs ?? 0) : 0;
  return waited || b.updatedAtMs - a.updatedAtMs || (a.sessionId < b.sessionId ? -1 : 1);
}

/** The fleet, folded from a watch's items. */
export class FleetModel {
  private readonly rows = new Map<string, SessionRowView>();
  private synced = false;
  private snapshot: FleetSnapshot = Object.freeze({ sessions: Object.freeze([]), synced: false });
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` after every change; returns the unsubscribe (`useSyncExternalStore`'s). */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The fleet now: the same object until the next change. */
  readonly getSnapshot = (): FleetSnapshot => this.snapshot;

  /** Takes one item of a watch: a session as it is now, or the first page's end. Returns the
   *  row it changed (`undefined` for the end of the page). */
  apply(item: GetSessionResponse | "synced"): SessionRowView | undefined {
    let row: SessionRowView | undefined;
    if (item === "synced") {
      this.synced = true;
    } else {
      row = sessionRowFromProto(item);
      this.rows.set(row.sessionId, row);
    }
    const sessions = Object.freeze([...this.rows.values()].sort(fleetOrder));
    this.snapshot = Object.freeze({ sessions, synced: this.synced });
    for (const listener of this.listeners) listener();
    return row;
  }
}
