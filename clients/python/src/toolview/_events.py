"""The events a harness publishes, built with their derived ids (see ``_ids``). Pure: the sync
and asyncio clients wrap these in their own publishing objects."""

from __future__ import annotations

import itertools
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Protocol, Sequence, Tuple, Union, cast

from ._ids import event_id, new_id, safe_id
from .errors import UsageError
from .v1 import events_pb2, views_pb2

#: What a call's arguments may be: a JSON-able mapping, or the raw argument text.
Arguments = Union[Mapping[str, Any], str, None]


class HasCallId(Protocol):
    """A started call (``Call``, ``AsyncCall``): what a child names as its parent."""

    @property
    def call_id(self) -> str: ...


#: The call a call or message runs under: a started call, its id, or none (the top level).
Parent = Union[HasCallId, str, None]


def parent_of(parent: Parent) -> Optional[str]:
    """The parent's call id, or none."""
    if parent is None or isinstance(parent, str):
        return parent or None
    return parent.call_id


#: A call's result: text, content blocks, or nothing.
Result = Union[str, Sequence[views_pb2.ContentBlock], None]
#: Presentation meta: a JSON-able mapping, or JSON text.
Meta = Union[Mapping[str, Any], str, None]

ROLES = {
    "user": events_pb2.MESSAGE_ROLE_USER,
    "assistant": events_pb2.MESSAGE_ROLE_ASSISTANT,
    "reasoning": events_pb2.MESSAGE_ROLE_REASONING,
}

STOP_REASONS = {
    None: events_pb2.STOP_REASON_UNSPECIFIED,
    "end_turn": events_pb2.STOP_REASON_END_TURN,
    "max_tokens": events_pb2.STOP_REASON_MAX_TOKENS,
    "max_turn_requests": events_pb2.STOP_REASON_MAX_TURN_REQUESTS,
    "refusal": events_pb2.STOP_REASON_REFUSAL,
    "cancelled": events_pb2.STOP_REASON_CANCELLED,
}


@dataclass(frozen=True)
class Usage:
    """A turn's token counts; 0 means not known."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    context_tokens: int = 0
    context_window: int = 0

    def to_proto(self) -> events_pb2.TokenUsage:
        return events_pb2.TokenUsage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cached_input_tokens=self.cached_input_tokens,
            reasoning_tokens=self.reasoning_tokens,
            context_tokens=self.context_tokens,
            context_window=self.context_window,
        )


def text_block(text: str) -> views_pb2.ContentBlock:
    """A text content block."""
    return views_pb2.ContentBlock(text=views_pb2.TextContent(text=text))


def arguments_json(args: Arguments) -> str:
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    # Display input never fails: what JSON cannot say is shown as its str().
    return json.dumps(args, ensure_ascii=False, default=str)


def meta_json(meta: Meta) -> str:
    if meta is None:
        return ""
    return meta if isinstance(meta, str) else json.dumps(meta, ensure_ascii=False, default=str)


def content(result: Result) -> Iterable[views_pb2.ContentBlock]:
    if result is None:
        return []
    if isinstance(result, str):
        return [text_block(result)]
    return list(result)


def role_of(role: Union[str, int]) -> "events_pb2.MessageRole":
    if isinstance(role, int):
        return cast("events_pb2.MessageRole", role)
    try:
        return ROLES[role]
    except KeyError:
        raise ValueError(f"role: one of {sorted(ROLES)}, not {role!r}") from None


def stop_reason_of(reason: Union[str, int, None]) -> "events_pb2.StopReason":
    if isinstance(reason, int):
        return cast("events_pb2.StopReason", reason)
    try:
        return STOP_REASONS[reason]
    except KeyError:
        raise ValueError(
            f"stop_reason: one of {sorted(k for k in STOP_REASONS if k)}, not {reason!r}"
        ) from None


def session_started(session_id: str, cwd: str) -> events_pb2.ToolEvent:
    return events_pb2.ToolEvent(
        session_id=session_id,
        event_id=event_id("session"),
        session_started=events_pb2.SessionStarted(cwd=cwd),
    )


def session_ended(session_id: str, reason: str) -> events_pb2.ToolEvent:
    return events_pb2.ToolEvent(
        session_id=session_id,
        # A session may end, resume and end again: each end is its own event (a retry of one
        # resends the same message, so it stays a duplicate).
        event_id=new_id("end"),
        session_ended=events_pb2.SessionEnded(reason=reason),
    )


class Ledger:
    """The call ids a client started, per session: a second start of one is refused before it
    is sent (the server would take it for a duplicate of the first). Remembers the latest
    ``MAX`` starts, so a long-running harness's memory stays bounded."""

    MAX = 100_000

    def __init__(self) -> None:
        self._started: OrderedDict[Tuple[str, str], None] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, session_id: str, call_id: str) -> None:
        key = (session_id, call_id)
        with self._lock:
            if key in self._started:
                raise UsageError(f"call {call_id}: already started in session {session_id}")
            self._started[key] = None
            if len(self._started) > self.MAX:
                self._started.popitem(last=False)


class CallEvents:
    """One call's events: started, input pieces 1, 2, … and its completion (when its input
    streams), output chunks 1, 2, …, finished."""

    def __init__(self, session_id: str, call_id: Optional[str]) -> None:
        self.session_id = session_id
        self.call_id = safe_id(call_id) if call_id else new_id("call")
        # next() on a count is atomic: threads writing one call's output never share an id.
        self._chunks = itertools.count(1)
        self._pieces = itertools.count(1)
        self._ended = False
        self._input_open = False

    def started(
        self,
        tool: str,
        args: Arguments,
        view: Optional[views_pb2.ToolCallView],
        streaming: bool = False,
        parent: Optional[str] = None,
    ) -> events_pb2.ToolEvent:
        if streaming and not (args is None or isinstance(args, str)):
            raise UsageError(
                f"call {self.call_id}: a streaming call starts with the text of its arguments so far "
                "(a str, or nothing); give the whole arguments to input_complete"
            )
        text = (args if isinstance(args, str) else "") if streaming else arguments_json(args)
        self._input_open = streaming
        if parent is not None and safe_id(parent) == self.call_id:
            raise UsageError(f"call {self.call_id}: a call cannot run under itself")
        started = events_pb2.ToolCallStarted(
            call_id=self.call_id,
            tool_name=tool,
            arguments_json=text,
            input_streaming=streaming,
            parent_call_id=safe_id(parent) if parent else "",
        )
        if view is not None:
            started.view.CopyFrom(view)
        return events_pb2.ToolEvent(
            session_id=self.session_id, event_id=event_id("call", self.call_id), call_started=started
        )

    def input_delta(self, text: str) -> events_pb2.ToolEvent:
        self._check_input("input_delta")
        return events_pb2.ToolEvent(
            session_id=self.session_id,
            event_id=event_id("call", self.call_id, "in", next(self._pieces)),
            call_input_delta=events_pb2.ToolCallInputDelta(call_id=self.call_id, text=text),
        )

    def input_complete(self, args: Arguments, view: Optional[views_pb2.ToolCallView]) -> events_pb2.ToolEvent:
        self._check_input("input_complete")
        self._input_open = False
        complete = events_pb2.ToolCallInputComplete(call_id=self.call_id, arguments_json=arguments_json(args))
        if view is not None:
            complete.view.CopyFrom(view)
        return events_pb2.ToolEvent(
            session_id=self.session_id,
            event_id=event_id("call", self.call_id, "input"),
            call_input_complete=complete,
        )

    def _check_input(self, what: str) -> None:
        if self._ended:
            raise UsageError(f"call {self.call_id}: {what} after its finish")
        if not self._input_open:
            raise UsageError(
                f"call {self.call_id}: {what} needs a call started with streaming=True whose input "
                "is not complete yet"
            )

    def output(self, data: str) -> events_pb2.ToolEvent:
        if self._ended:
            raise UsageError(f"call {self.call_id}: output after its finish")
        if self._input_open:
            raise UsageError(f"call {self.call_id}: its input is still streaming: input_complete first")
        return events_pb2.ToolEvent(
            session_id=self.session_id,
            event_id=event_id("call", self.call_id, next(self._chunks)),
            call_output=events_pb2.ToolCallOutput(call_id=self.call_id, data=data),
        )

    def finished(
        self, result: Result, is_error: bool, meta: Meta, view: Optional[views_pb2.ToolResultView]
    ) -> events_pb2.ToolEvent:
        if self._ended:
            raise UsageError(f"call {self.call_id}: finished twice")
        self._ended = True
        finished = events_pb2.ToolCallFinished(
            call_id=self.call_id, content=content(result), is_error=is_error, meta_json=meta_json(meta)
        )
        if view is not None:
            finished.view.CopyFrom(view)
        return events_pb2.ToolEvent(
            session_id=self.session_id, event_id=event_id("call", self.call_id, "end"), call_finished=finished
        )


class MessageEvents:
    """One message's events: started, deltas 1, 2, …, finished."""

    def __init__(self, session_id: str, message_id: Optional[str]) -> None:
        self.session_id = session_id
        self.message_id = safe_id(message_id) if message_id else new_id("msg")
        self._deltas = itertools.count(1)

    def started(self, role: Union[str, int], text: str, parent: Optional[str] = None) -> events_pb2.ToolEvent:
        return events_pb2.ToolEvent(
            session_id=self.session_id,
            event_id=event_id("msg", self.message_id),
            message_started=events_pb2.MessageStarted(
                message_id=self.message_id,
                role=role_of(role),
                text=text,
                parent_call_id=safe_id(parent) if parent else "",
            ),
        )

    def delta(self, text: str) -> events_pb2.ToolEvent:
        return events_pb2.ToolEvent(
            session_id=self.session_id,
            event_id=event_id("msg", self.message_id, next(self._deltas)),
            message_delta=events_pb2.MessageDelta(message_id=self.message_id, text=text),
        )

    def finished(self) -> events_pb2.ToolEvent:
        return events_pb2.ToolEvent(
            session_id=self.session_id,
            event_id=event_id("msg", self.message_id, "end"),
            message_finished=events_pb2.MessageFinished(message_id=self.message_id),
        )


class TurnEvents:
    """One turn's events: started, finished."""

    def __init__(self, session_id: str, turn_id: Optional[str]) -> None:
        self.session_id = session_id
        self.turn_id = safe_id(turn_id) if turn_id else new_id("turn")

    def started(self) -> events_pb2.ToolEvent:
        return events_pb2.ToolEvent(
            session_id=self.session_id,
            event_id=event_id("turn", self.turn_id),
            turn_started=events_pb2.TurnStarted(turn_id=self.turn_id),
        )

    def finished(self, stop_reason: Union[str, int, None], usage: Optional[Usage]) -> events_pb2.ToolEvent:
        finished = events_pb2.TurnFinished(turn_id=self.turn_id, stop_reason=stop_reason_of(stop_reason))
        if usage is not None:
            finished.usage.CopyFrom(usage.to_proto())
        return events_pb2.ToolEvent(
            session_id=self.session_id, event_id=event_id("turn", self.turn_id, "end"), turn_finished=finished
        )
