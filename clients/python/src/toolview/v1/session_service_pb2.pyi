import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from toolview.v1 import events_pb2 as _events_pb2
from toolview.v1 import rendering_pb2 as _rendering_pb2
from toolview.v1 import summary_pb2 as _summary_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PublishRequest(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.ToolEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[_events_pb2.ToolEvent, _Mapping]]] = ...) -> None: ...

class PublishResponse(_message.Message):
    __slots__ = ("acks",)
    ACKS_FIELD_NUMBER: _ClassVar[int]
    acks: _containers.RepeatedCompositeFieldContainer[PublishAck]
    def __init__(self, acks: _Optional[_Iterable[_Union[PublishAck, _Mapping]]] = ...) -> None: ...

class PublishAck(_message.Message):
    __slots__ = ("event_id", "cursor", "duplicate")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    cursor: _rendering_pb2.Cursor
    duplicate: bool
    def __init__(self, event_id: _Optional[str] = ..., cursor: _Optional[_Union[_rendering_pb2.Cursor, _Mapping]] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class SubscribeRequest(_message.Message):
    __slots__ = ("session_id", "target", "capabilities", "from_beginning", "after", "live_only")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    FROM_BEGINNING_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    LIVE_ONLY_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    target: _rendering_pb2.Target
    capabilities: _rendering_pb2.Capabilities
    from_beginning: StartFromBeginning
    after: _rendering_pb2.Cursor
    live_only: StartLiveOnly
    def __init__(self, session_id: _Optional[str] = ..., target: _Optional[_Union[_rendering_pb2.Target, str]] = ..., capabilities: _Optional[_Union[_rendering_pb2.Capabilities, _Mapping]] = ..., from_beginning: _Optional[_Union[StartFromBeginning, _Mapping]] = ..., after: _Optional[_Union[_rendering_pb2.Cursor, _Mapping]] = ..., live_only: _Optional[_Union[StartLiveOnly, _Mapping]] = ...) -> None: ...

class StartFromBeginning(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StartLiveOnly(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubscribeResponse(_message.Message):
    __slots__ = ("update", "heartbeat", "reset")
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    RESET_FIELD_NUMBER: _ClassVar[int]
    update: _rendering_pb2.RenderedUpdate
    heartbeat: Heartbeat
    reset: Reset
    def __init__(self, update: _Optional[_Union[_rendering_pb2.RenderedUpdate, _Mapping]] = ..., heartbeat: _Optional[_Union[Heartbeat, _Mapping]] = ..., reset: _Optional[_Union[Reset, _Mapping]] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("head_offset",)
    HEAD_OFFSET_FIELD_NUMBER: _ClassVar[int]
    head_offset: int
    def __init__(self, head_offset: _Optional[int] = ...) -> None: ...

class Reset(_message.Message):
    __slots__ = ("epoch", "head_offset")
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    HEAD_OFFSET_FIELD_NUMBER: _ClassVar[int]
    epoch: str
    head_offset: int
    def __init__(self, epoch: _Optional[str] = ..., head_offset: _Optional[int] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ("session_id", "epoch", "head_offset", "calls", "created_at", "updated_at", "title", "cwd", "rights", "summary")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    HEAD_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    RIGHTS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    epoch: str
    head_offset: int
    calls: int
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    title: str
    cwd: str
    rights: _containers.RepeatedScalarFieldContainer[str]
    summary: _summary_pb2.SessionSummary
    def __init__(self, session_id: _Optional[str] = ..., epoch: _Optional[str] = ..., head_offset: _Optional[int] = ..., calls: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., title: _Optional[str] = ..., cwd: _Optional[str] = ..., rights: _Optional[_Iterable[str]] = ..., summary: _Optional[_Union[_summary_pb2.SessionSummary, _Mapping]] = ...) -> None: ...

class ListSessionsRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "states", "title_prefix", "cwd_prefix", "updated_since")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    TITLE_PREFIX_FIELD_NUMBER: _ClassVar[int]
    CWD_PREFIX_FIELD_NUMBER: _ClassVar[int]
    UPDATED_SINCE_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    states: _containers.RepeatedScalarFieldContainer[_summary_pb2.SessionState]
    title_prefix: str
    cwd_prefix: str
    updated_since: _timestamp_pb2.Timestamp
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., states: _Optional[_Iterable[_Union[_summary_pb2.SessionState, str]]] = ..., title_prefix: _Optional[str] = ..., cwd_prefix: _Optional[str] = ..., updated_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListSessionsResponse(_message.Message):
    __slots__ = ("sessions", "next_page_token")
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    sessions: _containers.RepeatedCompositeFieldContainer[GetSessionResponse]
    next_page_token: str
    def __init__(self, sessions: _Optional[_Iterable[_Union[GetSessionResponse, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class WatchSessionsRequest(_message.Message):
    __slots__ = ("page_size", "states", "title_prefix", "cwd_prefix", "updated_since")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    TITLE_PREFIX_FIELD_NUMBER: _ClassVar[int]
    CWD_PREFIX_FIELD_NUMBER: _ClassVar[int]
    UPDATED_SINCE_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    states: _containers.RepeatedScalarFieldContainer[_summary_pb2.SessionState]
    title_prefix: str
    cwd_prefix: str
    updated_since: _timestamp_pb2.Timestamp
    def __init__(self, page_size: _Optional[int] = ..., states: _Optional[_Iterable[_Union[_summary_pb2.SessionState, str]]] = ..., title_prefix: _Optional[str] = ..., cwd_prefix: _Optional[str] = ..., updated_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WatchSessionsResponse(_message.Message):
    __slots__ = ("session", "synced")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SYNCED_FIELD_NUMBER: _ClassVar[int]
    session: GetSessionResponse
    synced: WatchSynced
    def __init__(self, session: _Optional[_Union[GetSessionResponse, _Mapping]] = ..., synced: _Optional[_Union[WatchSynced, _Mapping]] = ...) -> None: ...

class WatchSynced(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
