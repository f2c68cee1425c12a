"""One exception type per gRPC status code, each naming the code, the field the server
blamed (``events[2].call_output.call_id``) and its message."""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator, Optional, Tuple

import grpc

# For servers before the field was sent apart: the message starts with it.
_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?)*): ")
_EVENT_INDEX = re.compile(r"^events\[(\d+)\]")
_BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


class ToolviewError(Exception):
    """A failed call. ``code`` is the gRPC status code (``None`` for the client's own errors),
    ``field`` the request field the server named, if any, and ``details`` its message."""

    code: Optional[grpc.StatusCode] = None

    def __init__(
        self,
        details: str,
        *,
        code: Optional[grpc.StatusCode] = None,
        field: Optional[str] = None,
    ) -> None:
        if code is not None:
            self.code = code
        self.details = details
        if field is None:
            m = _FIELD.match(details)
            field = m.group(1) if m else None
        self.field: Optional[str] = field
        name = self.code.name if self.code is not None else type(self).__name__
        super().__init__(f"{name}: {details}")

    @property
    def event_index(self) -> Optional[int]:
        """For a publish: the index in the request of the event the server rejected."""
        m = _EVENT_INDEX.match(self.field or "")
        return int(m.group(1)) if m else None


class Cancelled(ToolviewError):
    code = grpc.StatusCode.CANCELLED


class Unknown(ToolviewError):
    code = grpc.StatusCode.UNKNOWN


class InvalidArgument(ToolviewError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class DeadlineExceeded(ToolviewError):
    code = grpc.StatusCode.DEADLINE_EXCEEDED


class NotFound(ToolviewError):
    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(ToolviewError):
    code = grpc.StatusCode.ALREADY_EXISTS


class PermissionDenied(ToolviewError):
    code = grpc.StatusCode.PERMISSION_DENIED


class ResourceExhausted(ToolviewError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class FailedPrecondition(ToolviewError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class Aborted(ToolviewError):
    code = grpc.StatusCode.ABORTED


class OutOfRange(ToolviewError):
    code = grpc.StatusCode.OUT_OF_RANGE


class Unimplemented(ToolviewError):
    code = grpc.StatusCode.UNIMPLEMENTED


class Internal(ToolviewError):
    code = grpc.StatusCode.INTERNAL


class Unavailable(ToolviewError):
    code = grpc.StatusCode.UNAVAILABLE


class DataLoss(ToolviewError):
    code = grpc.StatusCode.DATA_LOSS


class Unauthenticated(ToolviewError):
    code = grpc.StatusCode.UNAUTHENTICATED


class BufferFull(ToolviewError):
    """The publisher's buffer stayed full for the whole ``block_timeout``: the server is away
    or slower than the harness. The event was not taken."""


class PublisherClosed(ToolviewError):
    """An event was published after the client was closed."""


class ClientClosed(ToolviewError):
    """A call on a client that was closed."""


class UsageError(ToolviewError):
    """A use the client refuses before sending anything, since the server would take it as a
    duplicate and say nothing: a second ``finish`` of a call, output after it, a call id
    started twice in a session."""


class Undelivered(ToolviewError):
    """``close`` or ``flush`` ran out of time with events still unacknowledged (``pending``)."""

    def __init__(self, details: str, pending: int) -> None:
        super().__init__(details)
        self.pending = pending


_BY_CODE = {
    cls.code: cls
    for cls in (
        Cancelled,
        Unknown,
        InvalidArgument,
        DeadlineExceeded,
        NotFound,
        AlreadyExists,
        PermissionDenied,
        ResourceExhausted,
        FailedPrecondition,
        Aborted,
        OutOfRange,
        Unimplemented,
        Internal,
        Unavailable,
        DataLoss,
        Unauthenticated,
    )
}

#: Codes after which the same publish may succeed: the server or NATS was away, writers
#: collided, or an attempt ran out of time. Event ids make the retry safe. The client never
#: cancels a call it still wants, so a CANCELLED is the connection's (a server gone mid-call).
TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
    }
)

#: Codes after which a subscription resumes from its cursor: the transient ones, and a
#: subscriber that fell behind (its stream was ended; it loses nothing by resuming).
RESUMABLE = TRANSIENT | {grpc.StatusCode.RESOURCE_EXHAUSTED}


def from_rpc_error(error: grpc.RpcError) -> ToolviewError:
    """The typed exception for a failed call, naming the field of the status's
    ``google.rpc.BadRequest`` detail (or, from an older server, the one its message starts
    with)."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = (error.details() if hasattr(error, "details") else None) or str(code)
    trailers = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    cls = _BY_CODE.get(code, Unknown)
    return cls(details, code=code, field=field_violation(trailers or ()))


def field_violation(trailers: Iterable[Any]) -> Optional[str]:
    """The field of the first ``google.rpc.BadRequest`` field violation in a status's
    ``grpc-status-details-bin`` trailer (``trailers``: grpc's metadata, ``(key, value)`` pairs),
    if any. The three messages are read off the protobuf
    wire directly: a dependency on the googleapis protos for six fields is not worth it."""
    for key, value in trailers:
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        try:
            for number, any_bytes in _fields(value):
                # google.rpc.Status.details (3): Any {type_url = 1, value = 2}.
                if number != 3 or not isinstance(any_bytes, bytes):
                    continue
                parts = dict(_fields(any_bytes))
                payload = parts.get(2)
                if parts.get(1) != _BAD_REQUEST.encode() or not isinstance(payload, bytes):
                    continue
                for n, violation in _fields(payload):
                    # BadRequest.field_violations (1): FieldViolation {field = 1, …}.
                    if n == 1 and isinstance(violation, bytes):
                        field = dict(_fields(violation)).get(1)
                        if isinstance(field, bytes):
                            return field.decode("utf-8", "replace")
        except ValueError:
            return None
    return None


def _fields(data: bytes) -> Iterator[Tuple[int, object]]:
    """The fields of a protobuf message: (number, int for a varint, bytes for a
    length-delimited field); fixed-width fields are skipped. ``ValueError`` when truncated."""
    pos = 0

    def varint() -> int:
        nonlocal pos
        shift = result = 0
        while True:
            if pos >= len(data) or shift > 63:
                raise ValueError("truncated varint")
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    while pos < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            yield number, varint()
        elif wire == 2:
            n = varint()
            if pos + n > len(data):
                raise ValueError("truncated field")
            yield number, data[pos : pos + n]
            pos += n
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        else:
            raise ValueError(f"wire type {wire}")
