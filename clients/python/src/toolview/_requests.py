"""The unary calls' requests and the live start's head, shared by the sync and asyncio clients."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Iterable, Optional, Sequence, Type, TypeVar, Union, cast

from google.protobuf.message import Message as ProtoMessage

from . import _events
from ._events import Arguments, Meta, Result
from ._resume import target_of
from .v1 import events_pb2, presentation_service_pb2, rendering_pb2, session_service_pb2, summary_pb2

#: A unary call's response type.
Response = TypeVar("Response", bound=ProtoMessage)


def checked(answer: object, response: Type[Response]) -> Response:
    """A unary call's answer as its response type (the generated stubs are untyped)."""
    if not isinstance(answer, response):
        raise TypeError(f"expected a {response.__name__}, got {type(answer).__name__}")
    return answer


def present(
    tool: str, args: Arguments, result: Result, is_error: bool, meta: Meta
) -> presentation_service_pb2.PresentRequest:
    request = presentation_service_pb2.PresentRequest(
        tool_name=tool, arguments_json=_events.arguments_json(args)
    )
    if result is not None or is_error or meta is not None:
        request.result.CopyFrom(
            presentation_service_pb2.PresentResult(
                content=_events.content(result), is_error=is_error, meta_json=_events.meta_json(meta)
            )
        )
    return request


def render(
    events: Iterable[events_pb2.ToolEvent],
    target: Union[str, int],
    capabilities: Optional[rendering_pb2.Capabilities],
    session_cwd: str,
) -> presentation_service_pb2.RenderRequest:
    return presentation_service_pb2.RenderRequest(
        session_cwd=session_cwd, target=target_of(target), capabilities=capabilities, events=list(events)
    )


def head(info: session_service_pb2.GetSessionResponse) -> Optional[rendering_pb2.Cursor]:
    """Where a live-only subscription starts: after the session's head (none when empty)."""
    return rendering_pb2.Cursor(offset=info.head_offset, epoch=info.epoch) if info.head_offset else None


#: The session states ``list_sessions`` filters by, by name (``docs/sessions.md``).
STATES = {
    "requires_action": summary_pb2.SESSION_STATE_REQUIRES_ACTION,
    "running": summary_pb2.SESSION_STATE_RUNNING,
    "failed": summary_pb2.SESSION_STATE_FAILED,
    "idle": summary_pb2.SESSION_STATE_IDLE,
    "ended": summary_pb2.SESSION_STATE_ENDED,
}


def state_of(state: Union[str, int]) -> "summary_pb2.SessionState":
    if isinstance(state, int):
        return cast("summary_pb2.SessionState", state)
    try:
        return STATES[state]
    except KeyError:
        raise ValueError(f"state: one of {sorted(STATES)}, not {state!r}") from None


def list_sessions(
    page_size: int,
    page_token: str,
    states: Sequence[Union[str, int]],
    title_prefix: str,
    cwd_prefix: str,
    updated_since: Optional[datetime],
) -> session_service_pb2.ListSessionsRequest:
    request = session_service_pb2.ListSessionsRequest(
        page_size=page_size,
        page_token=page_token,
        states=[state_of(s) for s in states],
        title_prefix=title_prefix,
        cwd_prefix=cwd_prefix,
    )
    if updated_since is not None:
        request.updated_since.FromDatetime(updated_since)
    return request


def watch_sessions(
    page_size: int,
    states: Sequence[Union[str, int]],
    title_prefix: str,
    cwd_prefix: str,
    updated_since: Optional[datetime],
) -> session_service_pb2.WatchSessionsRequest:
    request = session_service_pb2.WatchSessionsRequest(
        page_size=page_size,
        states=[state_of(s) for s in states],
        title_prefix=title_prefix,
        cwd_prefix=cwd_prefix,
    )
    if updated_since is not None:
        request.updated_since.FromDatetime(updated_since)
    return request


#: How far before the latest change a watch yielded it resumes (the server's fleet throttle holds
#: a change half a second by default).
RESUME_MARGIN = timedelta(seconds=2)
