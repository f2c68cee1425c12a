"""One exception type per gRPC status code, each naming the code, the field the server
blamed (``events[2].call_output.call_id``) and its message."""

from __future__ import annotations

import re
from typing import Optional

import grpc

_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?)*): ")
_EVENT_INDEX = re.compile(r"^events\[(\d+)\]")


class ToolviewError(Exception):
    """A failed call. ``code`` is the gRPC status code (``None`` for the client's own errors),
    ``field`` the request field the server named, if any, and ``details`` its message."""

    code: Optional[grpc.StatusCode] = None

    def __init__(self, details: str, *, code: Optional[grpc.StatusCode] = None) -> None:
        if code is not None:
            self.code = code
        self.details = details
        m = _FIELD.match(details)
        self.field: Optional[str] = m.group(1) if m else None
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


class Undelivered(ToolviewError):
    """``close`` or ``flush`` ran out of time with events still unacknowledged (``pending``)."""

    def __init__(self, details: str, pending: int) -> None:
        super().__init__(details)
        self.pending = pending


_BY_CODE = {
    cls.code: cls
    for cls in (
        Cancelled, Unknown, InvalidArgument, DeadlineExceeded, NotFound, AlreadyExists,
        PermissionDenied, ResourceExhausted, FailedPrecondition, Aborted, OutOfRange,
        Unimplemented, Internal, Unavailable, DataLoss, Unauthenticated,
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
    """The typed exception for a failed call."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = (error.details() if hasattr(error, "details") else None) or str(code)
    cls = _BY_CODE.get(code, Unknown)
    return cls(details, code=code)
