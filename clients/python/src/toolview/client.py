# Generated from aio.py by scripts/generate-clients.sh (unasync): edit aio.py, not this.
"""The client: publish a session's events, subscribe to its renderings, and the unary calls
(GetSession, ListSessions, Present, Render). ``toolview.aio`` is the asyncio client (``await``,
``async with``, ``async for``); ``toolview.client`` is the same API made sync by unasync
(``scripts/generate-clients.sh``): edit ``aio.py`` only, and regenerate."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from time import sleep
from types import TracebackType
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple, Type, Union

import grpc
from google.protobuf.message import Message as ProtoMessage

from . import _connect, _events, _permissions, _requests
from ._events import Arguments, Meta, Result, Usage
from ._outbox import Backoff, PublishOptions
from ._permissions import DEFAULT_OPTIONS, Decision, Option
from ._publisher import OnError, Publisher
from ._resume import SYNCED, Item, Resume, Start, Synced, target_of
from ._streams import Stream, read
from .errors import TRANSIENT, ClientClosed, NotFound, from_rpc_error
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


def _unary(
    call: Callable[..., Any],
    request: ProtoMessage,
    metadata: List[Tuple[str, str]],
    response: Type[_requests.Response],
) -> _requests.Response:
    """One unary call; its response, of the type the stub (untyped) returns."""
    try:
        answer = call(request, metadata=metadata)
    except grpc.RpcError as e:
        raise from_rpc_error(e) from None
    return _requests.checked(answer, response)


class Call:
    """A started tool call: its live output, then its end. As a context manager it ends the
    call as failed, with the exception's text, if the block raises before ``finish``."""

    def __init__(self, publisher: Publisher, events: _events.CallEvents, session: "Session") -> None:
        self._publisher, self._events, self.finished = publisher, events, False
        self._session = session

    @property
    def call_id(self) -> str:
        return self._events.call_id

    def request_permission(
        self,
        title: str,
        options: Sequence[Option] = DEFAULT_OPTIONS,
        *,
        description: str = "",
        timeout: Optional[float] = None,
        expiry_option: Optional[str] = None,
        request_id: Optional[str] = None,
    ) -> Decision:
        """Asks whether this call may go on, and returns once it is decided (see
        ``Session.request_permission``)."""
        return self._session.request_permission(
            title,
            options,
            call_id=self.call_id,
            description=description,
            timeout=timeout,
            expiry_option=expiry_option,
            request_id=request_id,
        )

    def child_call(
        self,
        tool: str,
        args: Arguments = None,
        *,
        call_id: Optional[str] = None,
        view: Optional[views_pb2.ToolCallView] = None,
        streaming: bool = False,
    ) -> "Call":
        """A call this one runs (a subagent's call under the call that runs the subagent):
        ``Session.start_call`` with ``parent=`` this call."""
        return self._session.start_call(
            tool, args, call_id=call_id, view=view, streaming=streaming, parent=self
        )

    def input_delta(self, text: str) -> None:
        """More of the arguments' text, as the model writes it (a call started with
        ``streaming=True``)."""
        self._publisher.put(self._events.input_delta(text))

    def input_complete(self, args: Arguments, *, view: Optional[views_pb2.ToolCallView] = None) -> None:
        """The whole arguments: the presenters read these (a call started with ``streaming=True``)."""
        self._publisher.put(self._events.input_complete(args, view))

    def output(self, data: str) -> None:
        """A chunk of live output."""
        self._publisher.put(self._events.output(data))

    def finish(
        self,
        result: Result = None,
        *,
        is_error: bool = False,
        meta: Meta = None,
        view: Optional[views_pb2.ToolResultView] = None,
    ) -> None:
        """The call's end: its result (text or content blocks), whether it failed, the
        presentation meta computed at execution time, or a custom result view."""
        self._publisher.put(self._events.finished(result, is_error, meta, view))
        self.finished = True

    def __enter__(self) -> "Call":
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        if not self.finished:
            self.finish(str(exc) if exc else None, is_error=exc is not None)


class Message:
    """A started message: more text, then its end."""

    def __init__(self, publisher: Publisher, events: _events.MessageEvents) -> None:
        self._publisher, self._events = publisher, events

    @property
    def message_id(self) -> str:
        return self._events.message_id

    def append(self, text: str) -> None:
        self._publisher.put(self._events.delta(text))

    def finish(self) -> None:
        self._publisher.put(self._events.finished())


class Turn:
    """A started turn; ``finish`` ends it (as a context manager: with ``end_turn``, or
    ``cancelled`` if the block raises)."""

    def __init__(self, publisher: Publisher, events: _events.TurnEvents) -> None:
        self._publisher, self._events, self.finished = publisher, events, False

    @property
    def turn_id(self) -> str:
        return self._events.turn_id

    def finish(self, stop_reason: Union[str, int, None] = "end_turn", usage: Optional[Usage] = None) -> None:
        self._publisher.put(self._events.finished(stop_reason, usage))
        self.finished = True

    def __enter__(self) -> "Turn":
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        if not self.finished:
            self.finish("cancelled" if exc else "end_turn")


class Session:
    """One session's publishing side. Ids left out are drawn at random; every event id is
    derived from its subject, so a retry is a duplicate (see ``_ids``)."""

    def __init__(self, client: "Client", session_id: str, ledger: _events.Ledger) -> None:
        self._client, self._publisher = client, client.publisher
        self.session_id, self._ledger = session_id, ledger

    def start(self, cwd: str = "") -> None:
        """The session began, in ``cwd`` (absolute): paths under it are shown relative."""
        self._publisher.put(_events.session_started(self.session_id, cwd))

    def end(self, reason: str = "") -> None:
        """The harness closed the session (its state becomes ``ended`` until anything starts
        in it again); ``reason`` is display text."""
        self._publisher.put(_events.session_ended(self.session_id, reason))

    def start_call(
        self,
        tool: str,
        args: Arguments = None,
        *,
        call_id: Optional[str] = None,
        view: Optional[views_pb2.ToolCallView] = None,
        streaming: bool = False,
        parent: _events.Parent = None,
    ) -> Call:
        """A tool call started: its tool name (matched against the built-in presenters), its
        arguments, and optionally a custom call view. With ``streaming=True`` the model is still
        writing the arguments: ``args`` is their text so far (or nothing), ``Call.input_delta``
        appends to it and ``Call.input_complete`` gives them whole; until then UIs show the call
        pending with its input so far. ``parent`` (a started call or its id) nests this call under
        the call that runs it (a subagent's calls under the subagent's call)."""
        events = _events.CallEvents(self.session_id, call_id)
        self._ledger.start(self.session_id, events.call_id)
        self._publisher.put(events.started(tool, args, view, streaming, _events.parent_of(parent)))
        return Call(self._publisher, events, self)

    def start_message(
        self,
        role: Union[str, int],
        text: str = "",
        *,
        message_id: Optional[str] = None,
        parent: _events.Parent = None,
    ) -> Message:
        """A message (``user``, ``assistant`` or ``reasoning``) began with ``text``."""
        events = _events.MessageEvents(self.session_id, message_id)
        self._publisher.put(events.started(role, text, _events.parent_of(parent)))
        return Message(self._publisher, events)

    def message(
        self,
        role: Union[str, int],
        text: str,
        *,
        message_id: Optional[str] = None,
        parent: _events.Parent = None,
    ) -> str:
        """A whole message; returns its id."""
        message = self.start_message(role, text, message_id=message_id, parent=parent)
        message.finish()
        return message.message_id

    def start_turn(self, turn_id: Optional[str] = None) -> Turn:
        """A turn began."""
        events = _events.TurnEvents(self.session_id, turn_id)
        self._publisher.put(events.started())
        return Turn(self._publisher, events)

    def publish(self, event: events_pb2.ToolEvent) -> None:
        """A raw event (its ``session_id`` is set to this session's)."""
        event.session_id = self.session_id
        self._publisher.put(event)

    def request_permission(
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
        """Asks a person to decide (about ``call_id``, or a question of its own): every UI
        watching the session shows the prompt, the first authorized answer wins. Returns once
        it is decided; nobody answering within ``timeout`` seconds (the server's default when
        ``None``) is ``expiry_option`` (the first reject option by default)."""
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
        return self._client._ask(request)


class Subscription:
    """An iterator of a session's rendered updates (and ``Reset`` items). It keeps the last
    cursor and, after a transient failure or a server restart, reconnects and resumes after
    it. Heartbeats are not passed on."""

    def __init__(self, client: "Client", resume: Resume, reconnect: bool) -> None:
        self._client, self._resume, self._reconnect = client, resume, reconnect
        self._stream: Optional[Stream] = None
        self._closed = False
        self._backoff = Backoff(0.05, 2.0)
        #: Reconnections so far.
        self.reconnects = 0

    @property
    def cursor(self) -> Optional[rendering_pb2.Cursor]:
        """The last update's cursor: where the subscription resumes."""
        return self._resume.cursor

    def __iter__(self) -> "Subscription":
        return self

    def __next__(self) -> Item:
        while not self._closed:
            self._client._open()
            if self._stream is None:
                self._stream = self._client._sessions.Subscribe(
                    self._resume.request(), metadata=self._client._metadata()
                )
            error = None
            try:
                response = read(self._stream, session_service_pb2.SubscribeResponse)
            except grpc.RpcError as e:
                error = from_rpc_error(e)
            else:
                if response is not None:
                    item = self._resume.accept(response)
                    if item is not None:
                        self._backoff.reset()
                        return item
                    continue
            # The stream ended: a subscription has no end of its own, so the server went away
            # (or failed): resume after the last cursor.
            self._stream = None
            if self._closed:
                break
            resumable = self._resume.resumable(error, self._client._refreshable, time.monotonic())
            if not self._reconnect or not resumable:
                if error is not None:
                    raise error
                break
            self.reconnects += 1
            sleep(self._backoff.next())
        raise StopIteration

    def close(self) -> None:
        """Ends the subscription (from any thread or task)."""
        self._closed = True
        if self._stream is not None:
            self._stream.cancel()

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Client:
    """A connection to a toolview server.

    ``token`` is a bearer token (or a function returning the current one); ``tls`` turns on
    TLS with the system's roots, ``ca`` (a PEM path or bytes) with that CA. ``on_error``
    receives each event the server refused, on the publisher's thread (its task, in asyncio);
    without it, refusals are raised by the next ``flush`` or ``close``.
    """

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
        self._channel = _connect.channel(server, tls, ca, channel_options)
        self._metadata = _connect.metadata(token)
        self._refreshable = callable(token)
        # The generated gRPC stubs are untyped; the calls' responses are checked (`_unary`).
        self._sessions = session_service_pb2_grpc.SessionServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self._presentation = presentation_service_pb2_grpc.PresentationServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self._permissions = permission_service_pb2_grpc.PermissionServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self.publisher = Publisher(self._sessions.Publish, self._metadata, publish, on_error)
        self._ledger = _events.Ledger()
        self._closed = False

    def session(self, session_id: str) -> Session:
        """The publishing side of a session."""
        return Session(self, session_id, self._ledger)

    def _open(self) -> None:
        if self._closed:
            raise ClientClosed("the client is closed")

    def flush(self, timeout: Optional[float] = None) -> None:
        """Waits until every event published so far is acknowledged or refused; raises the
        first refusal (``Undelivered`` when ``timeout`` passes first)."""
        self.publisher.flush(timeout)

    def close(self, timeout: Optional[float] = 30.0) -> None:
        """Flushes, then closes the connection. Events still unacknowledged after ``timeout``
        are given up (``Undelivered`` says how many)."""
        try:
            self.publisher.flush(timeout, closing=True)
        finally:
            self._closed = True
            self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()

    def subscribe(
        self,
        session_id: str,
        target: Union[str, int] = "view",
        capabilities: Optional[rendering_pb2.Capabilities] = None,
        *,
        start: Start = "beginning",
        reconnect: bool = True,
        reconnect_deadline: Optional[float] = None,
    ) -> Subscription:
        """A session's updates for ``target`` (``view``, ``acp``, ``ag_ui``, ``markdown``,
        ``ansi``, ``ai_sdk``), from its ``start``: ``"beginning"`` (replay, then live),
        ``"live"`` (from now on) or after a ``Cursor``. After a transient failure it reconnects
        and resumes; with ``reconnect_deadline`` (seconds), it raises the last failure once
        it has failed that long without an item."""
        self._open()
        resume = Resume(session_id, target_of(target), capabilities, start)
        resume.reconnect_deadline = reconnect_deadline
        if start == "live":
            resume.pin_live_start(self._head(session_id))
        return Subscription(self, resume, reconnect)

    def _ask(self, request: _permissions.Request) -> Decision:
        """Publishes a request, then waits for its decision, asking again after a failure a
        retry can fix until the request's expiry (and a grace) has passed."""
        self._open()
        self.publisher.put(request.event)
        self.publisher.flush(None)
        ask = permission_service_pb2.AwaitPermissionRequest(
            session_id=request.event.session_id, request_id=request.request_id
        )
        give_up = time.monotonic() + request.give_up_after()
        attempt = 0
        while True:
            left = give_up - time.monotonic()
            try:
                answer = self._permissions.AwaitPermission(
                    ask, metadata=self._metadata(), timeout=max(0.1, min(_permissions.AWAIT_ATTEMPT, left))
                )
                response = _requests.checked(answer, permission_service_pb2.AwaitPermissionResponse)
                return request.decision(response.resolution)
            except grpc.RpcError as e:
                if e.code() not in _permissions.RETRY or left <= 0:
                    raise from_rpc_error(e) from None
            attempt += 1
            sleep(_permissions.pause(attempt))

    def respond_permission(
        self, session_id: str, request_id: str, option_id: str, *, reason: str = "", via: str = ""
    ) -> Tuple[bool, Decision]:
        """Answers a request (the ``approve`` right): whether this answer decided it, and the
        decision (this one, or the one that came first)."""
        self._open()
        request = permission_service_pb2.RespondPermissionRequest(
            session_id=session_id, request_id=request_id, option_id=option_id, reason=reason, via=via
        )
        response = _unary(
            self._permissions.RespondPermission,
            request,
            self._metadata(),
            permission_service_pb2.RespondPermissionResponse,
        )
        return response.won, _permissions.answered(response.resolution)

    def withdraw_permission(
        self, session_id: str, request_id: str, *, reason: str = ""
    ) -> Tuple[bool, Decision]:
        """Withdraws a pending request (the harness stopped waiting): whether the withdrawal
        decided it, and the decision."""
        self._open()
        request = permission_service_pb2.WithdrawPermissionRequest(
            session_id=session_id, request_id=request_id, reason=reason
        )
        response = _unary(
            self._permissions.WithdrawPermission,
            request,
            self._metadata(),
            permission_service_pb2.WithdrawPermissionResponse,
        )
        return response.won, _permissions.answered(response.resolution)

    def _head(self, session_id: str) -> Optional[rendering_pb2.Cursor]:
        try:
            info = self.get_session(session_id)
        except NotFound:
            return None
        return _requests.head(info)

    def get_session(self, session_id: str) -> session_service_pb2.GetSessionResponse:
        """A session's epoch, head, call count, times, title and cwd (``NotFound`` if none)."""
        self._open()
        request = session_service_pb2.GetSessionRequest(session_id=session_id)
        return _unary(
            self._sessions.GetSession, request, self._metadata(), session_service_pb2.GetSessionResponse
        )

    def list_sessions(
        self,
        page_size: int = 0,
        *,
        states: Sequence[Union[str, int]] = (),
        title_prefix: str = "",
        cwd_prefix: str = "",
        updated_since: Optional[datetime] = None,
    ) -> Iterator[session_service_pb2.GetSessionResponse]:
        """Every session the caller may read, in id order, fetched a page at a time, each with
        its ``summary`` (state, prompts waiting, activity). ``states`` (``requires_action``,
        ``running``, ``failed``, ``idle``), ``title_prefix``, ``cwd_prefix`` and
        ``updated_since`` (an aware ``datetime``) keep only the sessions that match."""
        self._open()
        token = ""
        while True:
            request = _requests.list_sessions(
                page_size, token, states, title_prefix, cwd_prefix, updated_since
            )
            page = _unary(
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

    def watch_sessions(
        self,
        *,
        states: Sequence[Union[str, int]] = (),
        title_prefix: str = "",
        cwd_prefix: str = "",
        page_size: int = 0,
        reconnect: bool = True,
        updated_since: Optional[datetime] = None,
    ) -> Iterator[Union[session_service_pb2.GetSessionResponse, Synced]]:
        """The fleet, live (``docs/sessions.md``): the first page of the sessions the filters
        keep, then ``SYNCED``, then a session again each time its summary changes (a session
        leaving the filters comes once more, with its new state). With ``updated_since`` the
        first page is the sessions changed since, in any state. After a transient failure it
        reconnects and resumes so: the sessions changed since shortly before the latest it
        yielded (those that left the filters meanwhile too), then ``SYNCED``."""
        self._open()
        request = _requests.watch_sessions(page_size, states, title_prefix, cwd_prefix, updated_since)
        backoff = Backoff(0.05, 2.0)
        # The server's time of the latest change yielded: where a reconnect resumes from.
        latest: Optional[datetime] = None
        while True:
            stream = self._sessions.WatchSessions(request, metadata=self._metadata())
            try:
                while True:
                    response = read(stream, session_service_pb2.WatchSessionsResponse)
                    if response is None:
                        break
                    backoff.reset()
                    if response.HasField("synced"):
                        yield SYNCED
                        continue
                    at = response.session.updated_at.ToDatetime(tzinfo=timezone.utc)
                    latest = at if latest is None else max(latest, at)
                    yield response.session
            except grpc.RpcError as e:
                if not reconnect or e.code() not in TRANSIENT:
                    raise from_rpc_error(e) from None
            finally:
                stream.cancel()
            if not reconnect:
                return
            if latest is not None:
                request.updated_since.FromDatetime(latest - _requests.RESUME_MARGIN)
            sleep(backoff.next())

    def present(
        self,
        tool: str,
        args: Arguments = None,
        result: Result = None,
        *,
        is_error: bool = False,
        meta: Meta = None,
    ) -> presentation_service_pb2.PresentResponse:
        """The built-in presenters' views for one call (and its result, when given)."""
        self._open()
        request = _requests.present(tool, args, result, is_error, meta)
        return _unary(
            self._presentation.Present, request, self._metadata(), presentation_service_pb2.PresentResponse
        )

    def render(
        self,
        events: Iterable[events_pb2.ToolEvent],
        target: Union[str, int] = "view",
        capabilities: Optional[rendering_pb2.Capabilities] = None,
        *,
        session_cwd: str = "",
    ) -> List[rendering_pb2.RenderedUpdate]:
        """Events rendered for a target without a session, one update per event."""
        self._open()
        request = _requests.render(events, target, capabilities, session_cwd)
        response = _unary(
            self._presentation.Render, request, self._metadata(), presentation_service_pb2.RenderResponse
        )
        return list(response.updates)
