"""The asyncio client: the same API as ``toolview.Client``, with ``await`` on everything that
talks to the server, ``async with`` and ``async for``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from types import TracebackType
from typing import Any, AsyncIterator, Iterable, List, Optional, Sequence, Tuple, Type, Union

import grpc
import grpc.aio
from google.protobuf.message import Message as ProtoMessage

from . import _connect, _events, _permissions, _requests
from ._events import Arguments, Meta, Result, Usage
from ._outbox import Backoff, Outbox, PublishOptions
from ._permissions import DEFAULT_OPTIONS, Decision, Option
from ._publisher import OnError, raise_failures, settle
from ._resume import Item, Resume, Start, target_of
from .errors import ClientClosed, NotFound, PublisherClosed, from_rpc_error
from .v1 import (
    events_pb2,
    permission_service_pb2,
    permission_service_pb2_grpc,
    presentation_service_pb2,
    presentation_service_pb2_grpc,
    rendering_pb2,
    session_service_pb2,
    session_service_pb2_grpc,
    views_pb2,
)


async def _unary(
    call: Any,
    request: ProtoMessage,
    metadata: List[Tuple[str, str]],
    response: Type[_requests.Response],
) -> _requests.Response:
    """One unary call; its response, of the type the stub (untyped) returns."""
    try:
        answer = await call(request, metadata=metadata)
    except grpc.RpcError as e:
        raise from_rpc_error(e) from None
    return _requests.checked(answer, response)


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


class AsyncCall:
    """A started tool call (see ``toolview.Call``)."""

    def __init__(
        self, publisher: AsyncPublisher, events: _events.CallEvents, session: "AsyncSession"
    ) -> None:
        self._publisher, self._events, self.finished = publisher, events, False
        self._session = session

    @property
    def call_id(self) -> str:
        return self._events.call_id

    async def request_permission(
        self,
        title: str,
        options: Sequence[Option] = DEFAULT_OPTIONS,
        *,
        description: str = "",
        timeout: Optional[float] = None,
        expiry_option: Optional[str] = None,
        request_id: Optional[str] = None,
    ) -> Decision:
        """Asks whether this call may go on (see ``toolview.Session.request_permission``)."""
        return await self._session.request_permission(
            title,
            options,
            call_id=self.call_id,
            description=description,
            timeout=timeout,
            expiry_option=expiry_option,
            request_id=request_id,
        )

    async def child_call(
        self,
        tool: str,
        args: Arguments = None,
        *,
        call_id: Optional[str] = None,
        view: Optional[views_pb2.ToolCallView] = None,
        streaming: bool = False,
    ) -> "AsyncCall":
        """A call this one runs (see ``toolview.Call.child_call``)."""
        return await self._session.start_call(
            tool, args, call_id=call_id, view=view, streaming=streaming, parent=self
        )

    async def input_delta(self, text: str) -> None:
        await self._publisher.put(self._events.input_delta(text))

    async def input_complete(self, args: Arguments, *, view: Optional[views_pb2.ToolCallView] = None) -> None:
        await self._publisher.put(self._events.input_complete(args, view))

    async def output(self, data: str) -> None:
        await self._publisher.put(self._events.output(data))

    async def finish(
        self,
        result: Result = None,
        *,
        is_error: bool = False,
        meta: Meta = None,
        view: Optional[views_pb2.ToolResultView] = None,
    ) -> None:
        await self._publisher.put(self._events.finished(result, is_error, meta, view))
        self.finished = True

    async def __aenter__(self) -> "AsyncCall":
        return self

    async def __aexit__(
        self, kind: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        if not self.finished:
            await self.finish(str(exc) if exc else None, is_error=exc is not None)


class AsyncMessage:
    """A started message (see ``toolview.Message``)."""

    def __init__(self, publisher: AsyncPublisher, events: _events.MessageEvents) -> None:
        self._publisher, self._events = publisher, events

    @property
    def message_id(self) -> str:
        return self._events.message_id

    async def append(self, text: str) -> None:
        await self._publisher.put(self._events.delta(text))

    async def finish(self) -> None:
        await self._publisher.put(self._events.finished())


class AsyncTurn:
    """A started turn (see ``toolview.Turn``)."""

    def __init__(self, publisher: AsyncPublisher, events: _events.TurnEvents) -> None:
        self._publisher, self._events, self.finished = publisher, events, False

    @property
    def turn_id(self) -> str:
        return self._events.turn_id

    async def finish(
        self, stop_reason: Union[str, int, None] = "end_turn", usage: Optional[Usage] = None
    ) -> None:
        await self._publisher.put(self._events.finished(stop_reason, usage))
        self.finished = True

    async def __aenter__(self) -> "AsyncTurn":
        return self

    async def __aexit__(
        self, kind: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        if not self.finished:
            await self.finish("cancelled" if exc else "end_turn")


class AsyncSession:
    """One session's publishing side (see ``toolview.Session``)."""

    def __init__(self, client: "AsyncClient", session_id: str, ledger: _events.Ledger) -> None:
        self._client, self._publisher = client, client.publisher
        self.session_id, self._ledger = session_id, ledger

    async def start(self, cwd: str = "") -> None:
        await self._publisher.put(_events.session_started(self.session_id, cwd))

    async def start_call(
        self,
        tool: str,
        args: Arguments = None,
        *,
        call_id: Optional[str] = None,
        view: Optional[views_pb2.ToolCallView] = None,
        streaming: bool = False,
        parent: _events.Parent = None,
    ) -> AsyncCall:
        events = _events.CallEvents(self.session_id, call_id)
        self._ledger.start(self.session_id, events.call_id)
        await self._publisher.put(events.started(tool, args, view, streaming, _events.parent_of(parent)))
        return AsyncCall(self._publisher, events, self)

    async def start_message(
        self,
        role: Union[str, int],
        text: str = "",
        *,
        message_id: Optional[str] = None,
        parent: _events.Parent = None,
    ) -> AsyncMessage:
        events = _events.MessageEvents(self.session_id, message_id)
        await self._publisher.put(events.started(role, text, _events.parent_of(parent)))
        return AsyncMessage(self._publisher, events)

    async def message(
        self,
        role: Union[str, int],
        text: str,
        *,
        message_id: Optional[str] = None,
        parent: _events.Parent = None,
    ) -> str:
        message = await self.start_message(role, text, message_id=message_id, parent=parent)
        await message.finish()
        return message.message_id

    async def start_turn(self, turn_id: Optional[str] = None) -> AsyncTurn:
        events = _events.TurnEvents(self.session_id, turn_id)
        await self._publisher.put(events.started())
        return AsyncTurn(self._publisher, events)

    async def publish(self, event: events_pb2.ToolEvent) -> None:
        event.session_id = self.session_id
        await self._publisher.put(event)

    async def request_permission(
        self,
        title: str,
        options: Sequence[Option] = DEFAULT_OPTIONS,
        *,
        call_id: Optional[str] = None,
        description: str = "",
        timeout: Optional[float] = None,
        expiry_option: Optional[str] = None,
        request_id: Optional[str] = None,
    ) -> Decision:
        """Asks a person to decide (see ``toolview.Session.request_permission``)."""
        request = _permissions.Request(
            self.session_id,
            title,
            options,
            call_id=call_id,
            description=description,
            timeout=timeout,
            expiry_option=expiry_option,
            request_id=request_id,
        )
        return await self._client._ask(request)


class AsyncSubscription:
    """An async iterator of a session's updates that resumes after its last cursor (see
    ``toolview.Subscription``)."""

    def __init__(self, client: "AsyncClient", resume: Resume, reconnect: bool) -> None:
        self._client, self._resume, self._reconnect = client, resume, reconnect
        self._stream: Optional[Any] = None
        self._closed = False
        self._backoff = Backoff(0.05, 2.0)
        self.reconnects = 0

    @property
    def cursor(self) -> Optional[rendering_pb2.Cursor]:
        return self._resume.cursor

    def __aiter__(self) -> "AsyncSubscription":
        return self

    async def __anext__(self) -> Item:
        while not self._closed:
            if self._stream is None:
                self._stream = self._client._sessions.Subscribe(
                    self._resume.request(), metadata=self._client._metadata()
                )
            error = None
            try:
                response = await self._stream.read()
            except grpc.RpcError as e:
                error = from_rpc_error(e)
            else:
                if response is not grpc.aio.EOF:
                    item = self._resume.accept(response)
                    if item is not None:
                        self._backoff.reset()
                        return item
                    continue
            self._stream = None
            if self._closed:
                break
            resumable = self._resume.resumable(error, self._client._refreshable, time.monotonic())
            if not self._reconnect or not resumable:
                if error is not None:
                    raise error
                break
            self.reconnects += 1
            await asyncio.sleep(self._backoff.next())
        raise StopAsyncIteration

    def close(self) -> None:
        self._closed = True
        if self._stream is not None:
            self._stream.cancel()

    async def __aenter__(self) -> "AsyncSubscription":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class AsyncClient:
    """A connection to a toolview server, for asyncio (see ``toolview.Client``)."""

    def __init__(
        self,
        server: str = "127.0.0.1:50051",
        *,
        token: _connect.Token = None,
        tls: bool = False,
        ca: Optional[Union[str, bytes]] = None,
        publish: PublishOptions = PublishOptions(),
        on_error: Optional[OnError] = None,
        channel_options: Sequence[Tuple[str, object]] = (),
    ) -> None:
        self._channel = _connect.aio_channel(server, tls, ca, channel_options)
        self._metadata = _connect.metadata(token)
        self._refreshable = callable(token)
        # The generated gRPC stubs are untyped; the calls' responses are checked (`_unary`).
        self._sessions = session_service_pb2_grpc.SessionServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self._presentation = presentation_service_pb2_grpc.PresentationServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self._permissions = permission_service_pb2_grpc.PermissionServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self.publisher = AsyncPublisher(self._sessions.Publish, self._metadata, publish, on_error)
        self._ledger = _events.Ledger()
        self._closed = False

    def session(self, session_id: str) -> AsyncSession:
        return AsyncSession(self, session_id, self._ledger)

    def _open(self) -> None:
        if self._closed:
            raise ClientClosed("the client is closed")

    async def flush(self, timeout: Optional[float] = None) -> None:
        await self.publisher.flush(timeout)

    async def close(self, timeout: Optional[float] = 30.0) -> None:
        try:
            await self.publisher.flush(timeout, closing=True)
        finally:
            self._closed = True
            await self._channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def subscribe(
        self,
        session_id: str,
        target: Union[str, int] = "view",
        capabilities: Optional[rendering_pb2.Capabilities] = None,
        *,
        start: Start = "beginning",
        reconnect: bool = True,
        reconnect_deadline: Optional[float] = None,
    ) -> AsyncSubscription:
        self._open()
        resume = Resume(session_id, target_of(target), capabilities, start)
        resume.reconnect_deadline = reconnect_deadline
        if start == "live":
            try:
                info = await self.get_session(session_id)
                head = _requests.head(info)
            except NotFound:
                head = None
            resume.pin_live_start(head)
        return AsyncSubscription(self, resume, reconnect)

    async def _ask(self, request: _permissions.Request) -> Decision:
        """Publishes a request, then waits for its decision (see ``toolview.Client._ask``)."""
        self._open()
        await self.publisher.put(request.event)
        await self.publisher.flush(None)
        ask = permission_service_pb2.AwaitPermissionRequest(
            session_id=request.event.session_id, request_id=request.request_id
        )
        give_up = time.monotonic() + request.give_up_after()
        attempt = 0
        while True:
            left = give_up - time.monotonic()
            try:
                answer = await self._permissions.AwaitPermission(
                    ask, metadata=self._metadata(), timeout=max(0.1, min(_permissions.AWAIT_ATTEMPT, left))
                )
                response = _requests.checked(answer, permission_service_pb2.AwaitPermissionResponse)
                return request.decision(response.resolution)
            except grpc.RpcError as e:
                if e.code() not in _permissions.RETRY or left <= 0:
                    raise from_rpc_error(e) from None
            attempt += 1
            await asyncio.sleep(_permissions.pause(attempt))

    async def respond_permission(
        self, session_id: str, request_id: str, option_id: str, *, reason: str = "", via: str = ""
    ) -> Tuple[bool, Decision]:
        """Answers a request (see ``toolview.Client.respond_permission``)."""
        self._open()
        request = permission_service_pb2.RespondPermissionRequest(
            session_id=session_id, request_id=request_id, option_id=option_id, reason=reason, via=via
        )
        response = await _unary(
            self._permissions.RespondPermission,
            request,
            self._metadata(),
            permission_service_pb2.RespondPermissionResponse,
        )
        return response.won, _permissions.answered(response.resolution)

    async def withdraw_permission(
        self, session_id: str, request_id: str, *, reason: str = ""
    ) -> Tuple[bool, Decision]:
        """Withdraws a pending request (see ``toolview.Client.withdraw_permission``)."""
        self._open()
        request = permission_service_pb2.WithdrawPermissionRequest(
            session_id=session_id, request_id=request_id, reason=reason
        )
        response = await _unary(
            self._permissions.WithdrawPermission,
            request,
            self._metadata(),
            permission_service_pb2.WithdrawPermissionResponse,
        )
        return response.won, _permissions.answered(response.resolution)

    async def get_session(self, session_id: str) -> session_service_pb2.GetSessionResponse:
        self._open()
        request = session_service_pb2.GetSessionRequest(session_id=session_id)
        return await _unary(
            self._sessions.GetSession, request, self._metadata(), session_service_pb2.GetSessionResponse
        )

    async def list_sessions(
        self, page_size: int = 0
    ) -> AsyncIterator[session_service_pb2.GetSessionResponse]:
        token = ""
        while True:
            request = session_service_pb2.ListSessionsRequest(page_size=page_size, page_token=token)
            page = await _unary(
                self._sessions.ListSessions,
                request,
                self._metadata(),
                session_service_pb2.ListSessionsResponse,
            )
            for session in page.sessions:
                yield session
            token = page.next_page_token
            if not token:
                return

    async def present(
        self,
        tool: str,
        args: Arguments = None,
        result: Result = None,
        *,
        is_error: bool = False,
        meta: Meta = None,
    ) -> presentation_service_pb2.PresentResponse:
        request = _requests.present(tool, args, result, is_error, meta)
        return await _unary(
            self._presentation.Present, request, self._metadata(), presentation_service_pb2.PresentResponse
        )

    async def render(
        self,
        events: Iterable[events_pb2.ToolEvent],
        target: Union[str, int] = "view",
        capabilities: Optional[rendering_pb2.Capabilities] = None,
        *,
        session_cwd: str = "",
    ) -> List[rendering_pb2.RenderedUpdate]:
        request = _requests.render(events, target, capabilities, session_cwd)
        response = await _unary(
            self._presentation.Render, request, self._metadata(), presentation_service_pb2.RenderResponse
        )
        return list(response.updates)
