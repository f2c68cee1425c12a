"""The sync publisher: one background thread sends the outbox's batches (see ``_outbox``)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, List, Optional, Tuple

import grpc

from ._outbox import Backoff, Failure, Outbox, PublishOptions
from .errors import TRANSIENT, PublisherClosed, ToolviewError, Unknown, from_rpc_error
from .v1 import events_pb2, session_service_pb2

log = logging.getLogger("toolview")

#: Called, on the publisher's thread, for each event the server refused.
OnError = Callable[[Failure], None]


def raise_failures(failures: List[Failure]) -> None:
    """Raises the first refused event's error; ``error.failures`` lists them all."""
    if failures:
        error = failures[0].error
        error.failures = failures  # type: ignore[attr-defined]
        raise error


def settle(outbox: Outbox, batch: List[events_pb2.ToolEvent], outcome: object) -> Optional[ToolviewError]:
    """Applies one attempt's outcome to the outbox; returns the error when it is transient."""
    if isinstance(outcome, session_service_pb2.PublishResponse):
        outbox.acknowledged(len(batch), sum(1 for a in outcome.acks if a.duplicate))
        return None
    if isinstance(outcome, grpc.RpcError):
        error = from_rpc_error(outcome)
    else:
        error = Unknown(f"publishing failed: {outcome!r}")
    if error.code in TRANSIENT:
        if outbox.retrying(error):
            log.warning("toolview: publishing failed, retrying until it succeeds: %s", error)
        return error
    log.warning("toolview refused a publish: %s", error)
    outbox.refused(batch, error)
    return None


class Publisher:
    """Takes events from any thread; sends them in order, batched, retried."""

    def __init__(
        self,
        call: Callable[..., session_service_pb2.PublishResponse],
        metadata: Callable[[], List[Tuple[str, str]]],
        options: PublishOptions,
        on_error: Optional[OnError],
    ) -> None:
        self._call, self._metadata, self._options, self._on_error = call, metadata, options, on_error
        self._outbox = Outbox(options)
        self._cond = threading.Condition()
        self._closed = self._abandoned = False
        self._flushing = 0
        self._first_at = 0.0
        self._thread: Optional[threading.Thread] = None
        #: Attempts that failed transiently and were sent again.
        self.retries = 0

    @property
    def acknowledged(self) -> int:
        """Events the server acknowledged so far (each appended once, or held already)."""
        return self._outbox.acknowledged_events

    @property
    def duplicates(self) -> int:
        """Acknowledgements that said the server already held the event (a retry's repeats)."""
        return self._outbox.duplicates

    def put(self, event: events_pb2.ToolEvent) -> None:
        size = event.ByteSize()
        with self._cond:
            deadline = (
                None
                if self._options.block_timeout is None
                else time.monotonic() + self._options.block_timeout
            )
            while not self._closed and not self._outbox.has_room(size):
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise self._outbox.full()
                self._cond.wait(remaining)
            if self._closed:
                raise PublisherClosed("the client is closed")
            if not len(self._outbox):
                self._first_at = time.monotonic()
            self._outbox.put(event, size)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="toolview-publisher", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _next_batch(self) -> Optional[List[events_pb2.ToolEvent]]:
        with self._cond:
            while True:
                if self._abandoned or (self._closed and not len(self._outbox)):
                    return None
                if not len(self._outbox):
                    self._cond.wait()
                    continue
                if self._flushing or self._closed or self._outbox.batch_ready():
                    return self._outbox.batch()
                wait = self._first_at + self._options.linger - time.monotonic()
                if wait <= 0:
                    return self._outbox.batch()
                self._cond.wait(wait)

    def _run(self) -> None:
        backoff = Backoff(self._options.initial_backoff, self._options.max_backoff)
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            request = session_service_pb2.PublishRequest(events=batch)
            outcome: object
            try:
                outcome = self._call(
                    request, timeout=self._options.attempt_timeout, metadata=self._metadata()
                )
            except Exception as e:
                outcome = e
            with self._cond:
                transient = settle(self._outbox, batch, outcome)
                failures = self._outbox.take_failures() if self._on_error else []
                # Events that arrived during the request waited already: send them at once.
                self._first_at = 0.0
                if transient is None:
                    backoff.reset()
                else:
                    self.retries += 1
                    # The whole pause, though every publish and flush notifies the condition
                    # meanwhile (waking early would retry at the rate events arrive); only
                    # abandoning (close timed out) cuts it short.
                    resume_at = time.monotonic() + backoff.next()
                    while not self._abandoned and (left := resume_at - time.monotonic()) > 0:
                        self._cond.wait(left)
                self._cond.notify_all()
            for failure in failures:
                self._on_error(failure)  # type: ignore[misc]

    def flush(self, timeout: Optional[float], closing: bool = False) -> None:
        with self._cond:
            target = self._outbox.taken
            self._flushing += 1
            if closing:
                self._closed = True
            self._cond.notify_all()
            try:
                deadline = None if timeout is None else time.monotonic() + timeout
                while self._outbox.settled < target:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        pending = target - self._outbox.settled
                        if closing:
                            self._abandoned = True
                            self._cond.notify_all()
                        raise self._outbox.undelivered(pending, timeout)
                    self._cond.wait(remaining)
            finally:
                self._flushing -= 1
            failures = self._outbox.take_failures()
        raise_failures(failures)
