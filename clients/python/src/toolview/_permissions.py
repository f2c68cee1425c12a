"""Permission requests on the harness side: the options, the request event, the decision it
gets, and the policy of waiting for it (sans I/O: the sync and asyncio clients run it).

A harness asks once (``call.request_permission(...)``); every UI watching the session shows the
prompt; the first authorized answer wins, and nobody answering in time is the request's reject
option. The decision comes back from ``AwaitPermission``, which the client asks again after a
reconnect or a server restart until the request's expiry has passed (docs/approvals.md).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional, Sequence

import grpc

from ._ids import event_id, new_id, safe_id
from .errors import UsageError
from .v1 import events_pb2

KINDS = {
    "allow_once": events_pb2.PERMISSION_OPTION_KIND_ALLOW_ONCE,
    "allow_always": events_pb2.PERMISSION_OPTION_KIND_ALLOW_ALWAYS,
    "reject_once": events_pb2.PERMISSION_OPTION_KIND_REJECT_ONCE,
    "reject_always": events_pb2.PERMISSION_OPTION_KIND_REJECT_ALWAYS,
}

#: How long one ``AwaitPermission`` call may wait before it is asked again (seconds).
AWAIT_ATTEMPT = 60.0
#: Past the request's own timeout, how long the client keeps asking (the server applies the
#: expiry; this covers a restart around it).
AWAIT_GRACE = 30.0
#: Codes an ``AwaitPermission`` is asked again after.
RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}


@dataclass(frozen=True)
class Option:
    """One answer a person may give: its id, its label and its kind (``allow_once``,
    ``allow_always``, ``reject_once``, ``reject_always``)."""

    option_id: str
    name: str
    kind: str

    @property
    def allows(self) -> bool:
        return self.kind.startswith("allow")


def allow_once(option_id: str = "allow", name: str = "Allow") -> Option:
    return Option(option_id, name, "allow_once")


def allow_always(option_id: str = "always", name: str = "Always allow") -> Option:
    return Option(option_id, name, "allow_always")


def reject_once(option_id: str = "reject", name: str = "Reject") -> Option:
    return Option(option_id, name, "reject_once")


def reject_always(option_id: str = "never", name: str = "Always reject") -> Option:
    return Option(option_id, name, "reject_always")


#: Allow, Always allow, Reject: what agents usually offer.
DEFAULT_OPTIONS = (allow_once(), allow_always(), reject_once())


@dataclass(frozen=True)
class Decision:
    """How a request was decided: ``outcome`` is ``selected`` (someone chose ``option_id``),
    ``expired`` (nobody answered in time: the expiry option applies) or ``withdrawn``;
    ``allowed`` says whether an allow-kind option applies."""

    request_id: str
    outcome: str
    option_id: Optional[str]
    kind: Optional[str]
    allowed: bool
    reason: str
    subject: str
    via: str
    resolved_at_ms: int

    @property
    def responder(self) -> str:
        """Who decided, as the UIs say it: ``alice via viewer`` (``someone via viewer`` without
        a subject)."""
        who = self.subject or "someone"
        return f"{who} via {self.via}" if self.via else who


class Request:
    """One request's event and what its options mean."""

    def __init__(
        self,
        session_id: str,
        title: str,
        options: Sequence[Option],
        *,
        call_id: Optional[str],
        description: str,
        timeout: Optional[float],
        expiry_option: Optional[str],
        request_id: Optional[str],
    ) -> None:
        if not any(o.allows for o in options) or all(o.allows for o in options):
            raise UsageError("a permission request needs at least one allow and one reject option")
        unknown = [o.kind for o in options if o.kind not in KINDS]
        if unknown:
            raise UsageError(f"unknown option kind {unknown[0]!r} (one of {', '.join(KINDS)})")
        expiry = expiry_option or next(o.option_id for o in options if not o.allows)
        self.request_id = safe_id(request_id)[:112] if request_id else new_id("perm")
        self.options = {o.option_id: o for o in options}
        self.timeout = timeout
        self.event = events_pb2.ToolEvent(
            session_id=session_id,
            event_id=event_id("perm", self.request_id),
            permission_requested=events_pb2.PermissionRequested(
                request_id=self.request_id,
                call_id=call_id or "",
                title=title,
                description=description,
                options=[
                    events_pb2.PermissionOption(option_id=o.option_id, name=o.name, kind=KINDS[o.kind])
                    for o in options
                ],
                expiry_option_id=expiry,
                timeout_ms=int(timeout * 1000) if timeout else 0,
            ),
        )

    def decision(self, r: events_pb2.PermissionResolved) -> Decision:
        return Request.decision_of(r, self.options)

    @staticmethod
    def decision_of(r: events_pb2.PermissionResolved, options: "dict[str, Option]") -> Decision:
        outcome = r.WhichOneof("outcome")
        option_id: Optional[str] = None
        if outcome == "selected_option_id":
            option_id = r.selected_option_id
        elif outcome == "expired":
            option_id = r.expired.option_id
        option = options.get(option_id) if option_id else None
        return Decision(
            request_id=r.request_id,
            outcome={"selected_option_id": "selected"}.get(outcome or "", outcome or "withdrawn"),
            option_id=option_id,
            kind=option.kind if option else None,
            allowed=bool(option and option.allows),
            reason=r.reason,
            subject=r.resolved_by.subject,
            via=r.resolved_by.via,
            resolved_at_ms=r.resolved_at_unix_ms,
        )

    def give_up_after(self, server_default: float = 300.0) -> float:
        """Seconds the client keeps asking for the decision."""
        return (self.timeout or server_default) + AWAIT_GRACE


def pause(attempt: int) -> float:
    """The pause before asking again: 50 ms doubling to 2 s, jittered."""
    ceiling: float = min(2.0, 0.05 * 2.0 ** min(attempt, 6))
    return random.uniform(0.5, 1.0) * ceiling


def answered(r: events_pb2.PermissionResolved) -> Decision:
    """A resolution as an answerer reads it: the options' kinds are the asker's, so ``kind``
    is ``None`` and ``allowed`` false; ``outcome``, ``option_id`` and who decided are known."""
    return Request.decision_of(r, {})


def denial(decision: Decision) -> str:
    """What an agent is told when a person said no, or nobody answered in time."""
    if decision.outcome == "expired":
        return "Nobody answered the permission request in time, so it was rejected."
    if decision.outcome == "withdrawn":
        return "The permission request was withdrawn."
    reason = f": {decision.reason}" if decision.reason else ""
    return f"Rejected by {decision.responder}{reason}"
