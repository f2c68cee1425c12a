"""A subscription's resume state, without I/O (the sync and asyncio clients drive it).

It remembers the cursor of the last update it passed on; every reconnection asks for what
follows it, so a reader sees each update once, in order, across any number of reconnections.
A ``Reset`` (the cursor's epoch is gone, or its offset was trimmed) is passed on: the updates
that follow it rebuild the session from what the server still keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union, cast

import grpc

from .errors import RESUMABLE, ToolviewError
from .v1 import rendering_pb2, session_service_pb2

#: Where a subscription starts: ``"beginning"``, ``"live"`` or after a cursor.
Start = Union[str, rendering_pb2.Cursor]

#: What a subscription yields: a rendered update, or a reset before the updates that rebuild.
Item = Union[rendering_pb2.RenderedUpdate, session_service_pb2.Reset]

TARGETS = {
    "view": rendering_pb2.TARGET_VIEW,
    "acp": rendering_pb2.TARGET_ACP,
    "ag_ui": rendering_pb2.TARGET_AG_UI,
    "markdown": rendering_pb2.TARGET_MARKDOWN,
    "ansi": rendering_pb2.TARGET_ANSI,
    "ai_sdk": rendering_pb2.TARGET_AI_SDK,
}


def target_of(target: Union[str, int]) -> "rendering_pb2.Target":
    if isinstance(target, int):
        return cast("rendering_pb2.Target", target)
    try:
        return TARGETS[target]
    except KeyError:
        raise ValueError(f"target: one of {sorted(TARGETS)}, not {target!r}") from None


class Synced:
    """A fleet watch's marker: every session of its first page has come; what follows is live."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SYNCED"


#: The one ``Synced`` marker (``watch_sessions`` yields it; compare with ``is``).
SYNCED = Synced()


@dataclass
class Resume:
    """The request to (re)connect with, and the bookkeeping of what was passed on."""

    session_id: str
    target: "rendering_pb2.Target"
    capabilities: Optional[rendering_pb2.Capabilities]
    start: Start
    #: The last update's cursor: where a reconnection resumes.
    cursor: Optional[rendering_pb2.Cursor] = None
    #: Whether the current connection has had any item (heartbeats included).
    progressed: bool = False
    #: Seconds a subscription keeps reconnecting without reaching the server before it raises
    #: the last failure (``None``: as long as it takes).
    reconnect_deadline: Optional[float] = None
    #: When the failures since the last item began (``time.monotonic()``), if they have.
    failing_since: Optional[float] = None

    def request(self) -> session_service_pb2.SubscribeRequest:
        """The request for a new connection."""
        self.progressed = False
        req = session_service_pb2.SubscribeRequest(session_id=self.session_id, target=self.target)
        if self.capabilities is not None:
            req.capabilities.CopyFrom(self.capabilities)
        if self.cursor is not None:
            req.after.CopyFrom(self.cursor)
        elif isinstance(self.start, rendering_pb2.Cursor):
            req.after.CopyFrom(self.start)
        elif self.start == "live":
            req.live_only.SetInParent()
        elif self.start == "beginning":
            req.from_beginning.SetInParent()
        else:
            raise ValueError(f"start: 'beginning', 'live' or a Cursor, not {self.start!r}")
        return req

    def pin_live_start(self, head: Optional[rendering_pb2.Cursor]) -> None:
        """A live-only start becomes "after the head as it was when subscribing", so that a
        reconnection before the first update misses nothing published meanwhile. ``None``
        (the session does not exist yet): everything it will hold is new."""
        if self.start == "live" and self.cursor is None:
            self.start = head if head is not None else "beginning"

    def accept(self, response: session_service_pb2.SubscribeResponse) -> Optional[Item]:
        """What to pass on for one stream item (heartbeats: nothing)."""
        self.progressed = True
        self.failing_since = None
        kind = response.WhichOneof("item")
        if kind == "update":
            self.cursor = response.update.cursor
            return response.update
        if kind == "reset":
            # Resume from what the server keeps: reconnecting before the next update must not
            # ask for the lost cursor again.
            self.cursor = None
            self.start = "beginning"
            return response.reset
        return None

    def resumable(self, error: Optional[ToolviewError], refreshable_token: bool, now: float) -> bool:
        """Whether a connection that ended with ``error`` (``None``: it just ended) at ``now``
        is resumed: not past the reconnect deadline, counted from the first failure since the
        last item."""
        if self.failing_since is None:
            self.failing_since = now
        if self.reconnect_deadline is not None and now - self.failing_since >= self.reconnect_deadline:
            return False
        if error is None or error.code in RESUMABLE:
            return True
        # The token expired under a live stream (the server ends it then): a token function
        # gives a fresh one. One refused before anything arrived is not tried again.
        return error.code == grpc.StatusCode.UNAUTHENTICATED and refreshable_token and self.progressed
