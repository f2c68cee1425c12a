import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from toolview.v1 import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SessionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_STATE_UNSPECIFIED: _ClassVar[SessionState]
    SESSION_STATE_REQUIRES_ACTION: _ClassVar[SessionState]
    SESSION_STATE_RUNNING: _ClassVar[SessionState]
    SESSION_STATE_FAILED: _ClassVar[SessionState]
    SESSION_STATE_IDLE: _ClassVar[SessionState]
    SESSION_STATE_ENDED: _ClassVar[SessionState]
SESSION_STATE_UNSPECIFIED: SessionState
SESSION_STATE_REQUIRES_ACTION: SessionState
SESSION_STATE_RUNNING: SessionState
SESSION_STATE_FAILED: SessionState
SESSION_STATE_IDLE: SessionState
SESSION_STATE_ENDED: SessionState

class PendingPrompt(_message.Message):
    __slots__ = ("request_id", "call_id", "title", "options", "requested_at", "expires_at")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    call_id: str
    title: str
    options: _containers.RepeatedCompositeFieldContainer[_events_pb2.PermissionOption]
    requested_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, request_id: _Optional[str] = ..., call_id: _Optional[str] = ..., title: _Optional[str] = ..., options: _Optional[_Iterable[_Union[_events_pb2.PermissionOption, _Mapping]]] = ..., requested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SessionSummary(_message.Message):
    __slots__ = ("state", "pending", "pending_count", "open_calls", "open_turns", "turns", "failed_calls", "last_stop", "activity", "activity_at", "usage")
    STATE_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    PENDING_COUNT_FIELD_NUMBER: _ClassVar[int]
    OPEN_CALLS_FIELD_NUMBER: _ClassVar[int]
    OPEN_TURNS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    FAILED_CALLS_FIELD_NUMBER: _ClassVar[int]
    LAST_STOP_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_AT_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    state: SessionState
    pending: _containers.RepeatedCompositeFieldContainer[PendingPrompt]
    pending_count: int
    open_calls: int
    open_turns: int
    turns: int
    failed_calls: int
    last_stop: _events_pb2.StopReason
    activity: str
    activity_at: _timestamp_pb2.Timestamp
    usage: _events_pb2.TokenUsage
    def __init__(self, state: _Optional[_Union[SessionState, str]] = ..., pending: _Optional[_Iterable[_Union[PendingPrompt, _Mapping]]] = ..., pending_count: _Optional[int] = ..., open_calls: _Optional[int] = ..., open_turns: _Optional[int] = ..., turns: _Optional[int] = ..., failed_calls: _Optional[int] = ..., last_stop: _Optional[_Union[_events_pb2.StopReason, str]] = ..., activity: _Optional[str] = ..., activity_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., usage: _Optional[_Union[_events_pb2.TokenUsage, _Mapping]] = ...) -> None: ...
