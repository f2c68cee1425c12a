"""The publisher's buffer and its policy, without threads or an event loop (the sync and asyncio
clients drive it).

Events wait in one FIFO bounded in count and bytes. A batch is the oldest events, up to
``max_batch_events`` and ``max_batch_bytes``; it is sent once the oldest has waited ``linger``
seconds, the batch is full, or a flush asks. One batch is in flight at a time, so events reach
the server in the order they were published. A transient failure resends the same events (the
server treats the repeats as duplicates); a permanent one drops the event the server named
(or the whole batch when it named none) and keeps the error for ``flush``/``close``.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Deque, List, Optional, Tuple

from .errors import BufferFull, ToolviewError, Undelivered
from .v1 import events_pb2


@dataclass(frozen=True)
class PublishOptions:
    """How the publisher batches, buffers and retries. Every bound is in events and bytes."""

    #: Seconds the oldest buffered event waits for others to join its batch. 5 ms costs a
    #: harness nothing it can see and turns a burst of output chunks into one request.
    linger: float = 0.005
    #: Events per request at most (the server validates and appends a request as one batch).
    max_batch_events: int = 256
    #: Bytes per request at most: well under the server's 4 MiB message limit.
    max_batch_bytes: int = 1 << 20
    #: Events the buffer holds at most while the server is slow or away.
    max_buffered_events: int = 10_000
    #: Bytes the buffer holds at most.
    max_buffered_bytes: int = 16 << 20
    #: Seconds ``publish`` waits for room in a full buffer before raising ``BufferFull``;
    #: ``None`` waits as long as it takes. Events are never dropped to make room: a session
    #: missing a call's start or end would be wrong for every viewer.
    block_timeout: Optional[float] = 30.0
    #: Seconds one Publish attempt may take before it is retried.
    attempt_timeout: float = 10.0
    #: The first retry's pause in seconds; each next one doubles, up to ``max_backoff``.
    initial_backoff: float = 0.05
    #: The longest pause between retries.
    max_backoff: float = 5.0


class Backoff:
    """Exponential pauses with jitter: each is uniform in [d/2, d], d doubling up to the cap,
    so that clients cut off together do not come back together."""

    def __init__(self, initial: float, maximum: float) -> None:
        self.initial, self.maximum, self.current = initial, maximum, initial

    def next(self) -> float:
        d = self.current
        self.current = min(self.current * 2, self.maximum)
        return random.uniform(d / 2, d)

    def reset(self) -> None:
        self.current = self.initial


@dataclass
class Failure:
    """An event the server refused, and why."""

    event: events_pb2.ToolEvent
    error: ToolviewError


class Outbox:
    """The buffered events and the publish counters."""

    def __init__(self, options: PublishOptions) -> None:
        self.options = options
        self._queue: Deque[Tuple[events_pb2.ToolEvent, int]] = deque()
        self._bytes = 0
        #: Events taken by ``put`` so far; an event's sequence number is its position.
        self.taken = 0
        #: Events the server acknowledged or refused so far (they left the buffer).
        self.settled = 0
        self.failures: List[Failure] = []
        #: Events the server acknowledged (appended, or held already).
        self.acknowledged_events = 0
        #: Acknowledgements that said the server already held the event id.
        self.duplicates = 0
        #: Why the latest attempt failed, while attempts fail transiently (``None`` once one
        #: succeeds): what ``undelivered`` reports.
        self.last_failure: Optional[ToolviewError] = None

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def buffered_bytes(self) -> int:
        return self._bytes

    def has_room(self, size: int) -> bool:
        """Whether an event of ``size`` bytes fits. An empty buffer takes any one event (the
        server judges its size), so a large event cannot block forever."""
        if not self._queue:
            return True
        return (
            len(self._queue) < self.options.max_buffered_events
            and self._bytes + size <= self.options.max_buffered_bytes
        )

    def full(self) -> BufferFull:
        """The error for an event that found no room in time."""
        return BufferFull(
            f"{len(self._queue)} events ({self._bytes} bytes) await the server; the buffer holds "
            f"{self.options.max_buffered_events} events or {self.options.max_buffered_bytes} bytes"
        )

    def put(self, event: events_pb2.ToolEvent, size: int) -> int:
        self._queue.append((event, size))
        self._bytes += size
        self.taken += 1
        return self.taken

    def batch_ready(self) -> bool:
        """Whether the oldest events fill a batch already (no need to linger)."""
        if len(self._queue) >= self.options.max_batch_events:
            return True
        return self._bytes >= self.options.max_batch_bytes

    def batch(self) -> List[events_pb2.ToolEvent]:
        """The next batch: the oldest events (at least one) within the batch bounds."""
        out: List[events_pb2.ToolEvent] = []
        size = 0
        for event, n in self._queue:
            if out and (len(out) >= self.options.max_batch_events or size + n > self.options.max_batch_bytes):
                break
            out.append(event)
            size += n
        return out

    def acknowledged(self, count: int, duplicates: int) -> None:
        """The first ``count`` buffered events were appended (or already held)."""
        for _ in range(count):
            _, n = self._queue.popleft()
            self._bytes -= n
        self.settled += count
        self.acknowledged_events += count
        self.last_failure = None
        self.duplicates += duplicates

    def retrying(self, error: ToolviewError) -> bool:
        """An attempt failed transiently (its events go again); ``True`` for the first failure
        since the last success, which the client reports (once, not per retry)."""
        first = self.last_failure is None
        self.last_failure = error
        return first

    def undelivered(self, pending: int, timeout: Optional[float]) -> Undelivered:
        """The error for a flush or close that ran out of time: the count, and why the server
        did not take them (a refused connection, an unavailable server) when known."""
        why = f": the last attempt failed: {self.last_failure}" if self.last_failure else ""
        return Undelivered(f"{pending} events were not acknowledged within {timeout} s{why}", pending)

    def refused(self, batch: List[events_pb2.ToolEvent], error: ToolviewError) -> None:
        """The server refused ``batch`` for good: the event it named leaves the buffer (the
        others are sent again), or the whole batch when it named none."""
        index = error.event_index
        if index is not None and index < len(batch):
            # The server validates a request as a whole before appending any of it: the events
            # before the named one were not appended either and go again.
            event, n = self._queue[index]
            del self._queue[index]
            self._bytes -= n
            self.settled += 1
            self.failures.append(Failure(event, error))
            return
        for event in batch:
            _, n = self._queue.popleft()
            self._bytes -= n
            self.settled += 1
            self.failures.append(Failure(event, error))

    def take_failures(self) -> List[Failure]:
        failures, self.failures = self.failures, []
        return failures
