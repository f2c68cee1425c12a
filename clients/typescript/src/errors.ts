// One error class naming the gRPC code, the field the server blamed and its message.
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ToolEvent } from "./gen/toolview/v1/events_pb.js";

// For servers before the field was sent apart: the message starts with it.
const FIELD = /^([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?)*): /;
const EVENT_INDEX = /^events\[(\d+)\]/;

/** The gRPC status name of a code (`INVALID_ARGUMENT`, …). */
export function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** A failed call: `code` is the gRPC code (undefined for the client's own errors), `field` the
 * request field the server named, `details` its message. */
export class ToolviewError extends Error {
  readonly field: string | undefined;
  /** For a refused publish: the events refused (filled in by `flush`/`close`). */
  failures: { event: ToolEvent; error: ToolviewError }[] = [];

  constructor(
    readonly details: string,
    readonly code: Code | undefined,
    field?: string,
  ) {
    super(`${code === undefined ? "toolview" : codeName(code)}: ${details}`);
    this.name = "ToolviewError";
    this.field = field ?? FIELD.exec(details)?.[1];
  }

  /** For a publish: the index in the request of the event the server refused. */
  get eventIndex(): number | undefined {
    const m = EVENT_INDEX.exec(this.field ?? "");
    return m ? Number(m[1]) : undefined;
  }

  static from(error: unknown): ToolviewError {
    if (error instanceof ToolviewError) return error;
    const e = ConnectError.from(error);
    // A browser's fetch says only `TypeError: Failed to fetch` when nothing answers (a server
    // restarting, a dropped network), which Connect-Web reports as UNKNOWN: the server could not
    // be reached, so it is UNAVAILABLE (and a subscription follows again).
    if (e.code === Code.Unknown && (e.cause instanceof TypeError || error instanceof TypeError)) {
      return new ToolviewError(e.rawMessage, Code.Unavailable);
    }
    return new ToolviewError(e.rawMessage, e.code, fieldViolation(e));
  }
}

/** The field of the first `google.rpc.BadRequest` field violation in a status's details, read
 * off the protobuf wire (two string fields: not worth the googleapis protos). */
export function fieldViolation(error: ConnectError): string | undefined {
  for (const detail of error.details) {
    // Incoming details (parsed off the wire) carry their type name and bytes.
    if (!("type" in detail) || !detail.type.endsWith("google.rpc.BadRequest")) continue;
    try {
      const request = new BinaryReader(detail.value);
      while (request.pos < request.len) {
        const [number, wire] = request.tag();
        if (number !== 1 || wire !== WireType.LengthDelimited) {
          request.skip(wire);
          continue;
        }
        // FieldViolation { field = 1, description = 2 }
        const violation = new BinaryReader(request.bytes());
        while (violation.pos < violation.len) {
          const [n, w] = violation.tag();
          if (n === 1 && w === WireType.LengthDelimited) return violation.string();
          violation.skip(w);
        }
      }
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A use the client refuses before sending anything, since the server would take it as a
 * duplicate and say nothing: a second `finish` of a call, output after it, a call id started
 * twice in a session. */
export class UsageError extends ToolviewError {
  constructor(details: string) {
    super(details, undefined);
    this.name = "UsageError";
  }
}

/** A call on a client that was closed. */
export class ClientClosed extends ToolviewError {
  constructor() {
    super("the client is closed", undefined);
    this.name = "ClientClosed";
  }
}

/** The buffer stayed full for the whole `blockTimeoutMs`; the event was not taken. */
export class BufferFull extends ToolviewError {
  constructor(details: string) {
    super(details, undefined);
    this.name = "BufferFull";
  }
}

/** `close`/`flush` ran out of time with `pending` events unacknowledged. */
export class Undelivered extends ToolviewError {
  constructor(
    details: string,
    readonly pending: number,
  ) {
    super(details, undefined);
    this.name = "Undelivered";
  }
}

/** Codes after which the same publish may succeed (event ids make the retry safe). The client
 * never cancels a call it still wants, so a `CANCELED` is the connection's: connect-node
 * reports a server that went away mid-call as "http/2 stream closed with error code CANCEL". */
export const TRANSIENT: ReadonlySet<Code> = new Set([
  Code.Unavailable,
  Code.Aborted,
  Code.DeadlineExceeded,
  Code.Canceled,
]);
/** Codes after which a subscription resumes from its cursor. */
export const RESUMABLE: ReadonlySet<Code> = new Set([...TRANSIENT, Code.ResourceExhausted]);
