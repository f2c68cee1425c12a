"""The asyncio publisher: one task sends the outbox's batches (the twin of ``_publisher``'s
thread; see ``_outbox``, which both share)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, List, Optional

from ._outbox import Backoff, Outbox, PublishOptions
from ._publisher import OnError, raise_failures, settle
from .errors import PublisherClosed
from .v1 import events_pb2, session_service_pb2

__all__ = ["AsyncPublisher", "OnError"]


class AsyncPublisher:
    """The asyncio twin of ``toolview._publisher.Publisher``: one task sends the batches."""

    def __init__(
        self, call: Any, metadata: Any, options: PublishOptions, on_error: Optional[OnError]
    ) -> None:
        self._call, self._metadata, self._options, self._on_error = call, metadata, options, on_error
        self._outbox = Outbox(options)
        self._cond = asyncio.Condition()
        self._closed = self._abandoned = False
        self._flushing = 0
        self._first_at = 0.0
        self._task: Optional[asyncio.Task[None]] = None
        self.retries = 0

    @property
    def acknowledged(self) -> int:
        """Events the server acknowledged so far (each appended once, or held already)."""
        return self._outbox.acknowledged_events

    @property
    def duplicates(self) -> int:
        return self._outbox.duplicates

    async def put(self, event: events_pb2.ToolEvent) -> None:
        size = event.ByteSize()
        async with self._cond:
            try:
                await asyncio.wait_for(
                    self._cond.wait_for(lambda: self._closed or self._outbox.has_room(size)),
                    self._options.block_timeout,
                )
            except asyncio.TimeoutError:
                raise self._outbox.full() from None
            if self._closed:
                raise PublisherClosed("the client is closed")
            if not len(self._outbox):
                self._first_at = time.monotonic()
            self._outbox.put(event, size)
            if self._task is None:
                self._task = asyncio.get_running_loop().create_task(self._run(), name="toolview-publisher")
            self._cond.notify_all()

    async def _next_batch(self) -> Optional[List[events_pb2.ToolEvent]]:
        async with self._cond:
            while True:
                if self._abandoned or (self._closed and not len(self._outbox)):
                    return None
                if not len(self._outbox):
                    await self._cond.wait()
                    continue
                if self._flushing or self._closed or self._outbox.batch_ready():
                    return self._outbox.batch()
                wait = self._first_at + self._options.linger - time.monotonic()
                if wait <= 0:
                    return self._outbox.batch()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._cond.wait(), wait)

    async def _run(self) -> None:
        backoff = Backoff(self._options.initial_backoff, self._options.max_backoff)
        while True:
            batch = await self._next_batch()
            if batch is None:
                return
            request = session_service_pb2.PublishRequest(events=batch)
            outcome: object
            try:
                outcome = await self._call(
                    request, timeout=self._options.attempt_timeout, metadata=self._metadata()
                )
            except asyncio.CancelledError:
                raise
            except Exception as e:
                outcome = e
            async with self._cond:
                transient = settle(self._outbox, batch, outcome)
                failures = self._outbox.take_failures() if self._on_error else []
                self._first_at = 0.0
                self._cond.notify_all()
            for failure in failures:
                self._on_error(failure)  # type: ignore[misc]
            if transient is None:
                backoff.reset()
            else:
                self.retries += 1
                await asyncio.sleep(backoff.next())

    async def flush(self, timeout: Optional[float], closing: bool = False) -> None:
        async with self._cond:
            target = self._outbox.taken
            self._flushing += 1
            if closing:
                self._closed = True
            self._cond.notify_all()
            try:
                await asyncio.wait_for(self._cond.wait_for(lambda: self._outbox.settled >= target), timeout)
            except asyncio.TimeoutError:
                pending = target - self._outbox.settled
                if closing:
                    self._abandoned = True
                    if self._task is not None:
                        self._task.cancel()
                raise self._outbox.undelivered(pending, timeout) from None
            finally:
                self._flushing -= 1
            failures = self._outbox.take_failures()
        raise_failures(failures)
