// Permission requests on the harness side: the options, the request event, the decision it
// gets. A harness asks once (`call.requestPermission(...)`); every UI watching the session shows
// the prompt; the first authorized answer wins, and nobody answering in time is the request's
// reject option. The decision comes back from `AwaitPermission`, asked again after a reconnect
// or a server restart until the request's expiry has passed (docs/approvals.md).
import { create } from "@bufbuild/protobuf";
import { UsageError } from "./errors.js";
import {
  PermissionOptionKind,
  type PermissionResolved,
  type ToolEvent,
  ToolEventSchema,
} from "./gen/toolview/v1/events_pb.js";
import { eventId, newId, safeId } from "./ids.js";

/** What choosing an option means. */
export type OptionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";

/** One answer a person may give. */
export interface PermissionOption {
  optionId: string;
  name: string;
  kind: OptionKind;
}

const KINDS: Record<OptionKind, PermissionOptionKind> = {
  allow_once: PermissionOptionKind.ALLOW_ONCE,
  allow_always: PermissionOptionKind.ALLOW_ALWAYS,
  reject_once: PermissionOptionKind.REJECT_ONCE,
  reject_always: PermissionOptionKind.REJECT_ALWAYS,
};

const allows = (kind: OptionKind) => kind.startsWith("allow");

export const allowOnce = (optionId = "allow", name = "Allow"): PermissionOption => ({
  optionId,
  name,
  kind: "allow_once",
});
export const allowAlways = (optionId = "always", name = "Always allow"): PermissionOption => ({
  optionId,
  name,
  kind: "allow_always",
});
export const rejectOnce = (optionId = "reject", name = "Reject"): PermissionOption => ({
  optionId,
  name,
  kind: "reject_once",
});
export const rejectAlways = (optionId = "never", name = "Always reject"): PermissionOption => ({
  optionId,
  name,
  kind: "reject_always",
});

/** Allow, Always allow, Reject: what agents usually offer. */
export const DEFAULT_OPTIONS: readonly PermissionOption[] = [allowOnce(), allowAlways(), rejectOnce()];

/** How a request was decided: `selected` (someone chose `optionId`), `expired` (nobody answered
 * in time: the expiry option applies) or `withdrawn`; `allowed` says whether an allow-kind
 * option applies (known to the asker; an answerer's decision has no `kind`). */
export interface Decision {
  requestId: string;
  outcome: "selected" | "expired" | "withdrawn";
  optionId?: string;
  kind?: OptionKind;
  allowed: boolean;
  reason: string;
  subject: string;
  via: string;
  resolvedAtMs: bigint;
}

/** Who decided, as the UIs say it: `alice via viewer` (`someone via viewer` without a subject). */
export function responder(d: Decision): string {
  const who = d.subject || "someone";
  return d.via ? `${who} via ${d.via}` : who;
}

/** What a request may say besides its title and options. */
export interface PermissionRequestOptions {
  /** More about it. */
  description?: string;
  /** How long people have to answer (the server's default when absent). */
  timeoutMs?: number;
  /** The option applied at expiry (the first reject option by default). */
  expiryOption?: string;
  /** The request's id (drawn at random when absent). */
  requestId?: string;
}

/** Past the request's own timeout, how long the client keeps asking for the decision. */
export const AWAIT_GRACE_MS = 30_000;
/** How long one `AwaitPermission` may wait before it is asked again. */
export const AWAIT_ATTEMPT_MS = 60_000;

/** One request: its event and what its options mean. */
export class PermissionRequest {
  readonly requestId: string;
  readonly event: ToolEvent;
  readonly timeoutMs?: number;
  private readonly options: Map<string, PermissionOption>;

  constructor(
    sessionId: string,
    title: string,
    options: readonly PermissionOption[],
    opts: PermissionRequestOptions & { callId?: string },
  ) {
    if (!options.some((o) => allows(o.kind)) || options.every((o) => allows(o.kind)))
      throw new UsageError("a permission request needs at least one allow and one reject option");
    const unknown = options.find((o) => !(o.kind in KINDS));
    if (unknown) throw new UsageError(`unknown option kind ${JSON.stringify(unknown.kind)}`);
    const expiry = opts.expiryOption ?? options.find((o) => !allows(o.kind))?.optionId ?? "";
    this.requestId = opts.requestId ? safeId(opts.requestId).slice(0, 112) : newId("perm");
    this.timeoutMs = opts.timeoutMs;
    this.options = new Map(options.map((o) => [o.optionId, o]));
    this.event = create(ToolEventSchema, {
      sessionId,
      eventId: eventId("perm", this.requestId),
      event: {
        case: "permissionRequested",
        value: {
          requestId: this.requestId,
          callId: opts.callId ?? "",
          title,
          description: opts.description ?? "",
          options: options.map((o) => ({ optionId: o.optionId, name: o.name, kind: KINDS[o.kind] })),
          expiryOptionId: expiry,
          timeoutMs: BigInt(Math.round(opts.timeoutMs ?? 0)),
        },
      },
    });
  }

  /** The decision a resolution makes of this request. */
  decision(r: PermissionResolved): Decision {
    return decisionOf(r, this.options);
  }

  /** Milliseconds the client keeps asking for the decision. */
  giveUpAfterMs(serverDefaultMs = 300_000): number {
    return (this.timeoutMs ?? serverDefaultMs) + AWAIT_GRACE_MS;
  }
}

/** A resolution as a decision; the options' kinds come from the asker's request when known. */
export function decisionOf(r: PermissionResolved, options: Map<string, PermissionOption> = new Map()): Decision {
  const outcome =
    r.outcome.case === "selectedOptionId" ? "selected" : r.outcome.case === "expired" ? "expired" : "withdrawn";
  const optionId =
    r.outcome.case === "selectedOptionId"
      ? r.outcome.value
      : r.outcome.case === "expired"
        ? r.outcome.value.optionId
        : undefined;
  const option = optionId === undefined ? undefined : options.get(optionId);
  return {
    requestId: r.requestId,
    outcome,
    optionId,
    kind: option?.kind,
    allowed: option !== undefined && allows(option.kind),
    reason: r.reason,
    subject: r.resolvedBy?.subject ?? "",
    via: r.resolvedBy?.via ?? "",
    resolvedAtMs: r.resolvedAtUnixMs,
  };
}

/** What an agent is told when a person said no, or nobody answered in time. */
export function denial(d: Decision): string {
  if (d.outcome === "expired") return "Nobody answered the permission request in time, so it was rejected.";
  if (d.outcome === "withdrawn") return "The permission request was withdrawn.";
  return `Rejected by ${responder(d)}${d.reason ? `: ${d.reason}` : ""}`;
}
