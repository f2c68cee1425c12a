from toolview.v1 import events_pb2 as _events_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RespondPermissionRequest(_message.Message):
    __slots__ = ("session_id", "request_id", "option_id", "reason", "via")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OPTION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VIA_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    request_id: str
    option_id: str
    reason: str
    via: str
    def __init__(self, session_id: _Optional[str] = ..., request_id: _Optional[str] = ..., option_id: _Optional[str] = ..., reason: _Optional[str] = ..., via: _Optional[str] = ...) -> None: ...

class RespondPermissionResponse(_message.Message):
    __slots__ = ("won", "resolution")
    WON_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    won: bool
    resolution: _events_pb2.PermissionResolved
    def __init__(self, won: _Optional[bool] = ..., resolution: _Optional[_Union[_events_pb2.PermissionResolved, _Mapping]] = ...) -> None: ...

class AwaitPermissionRequest(_message.Message):
    __slots__ = ("session_id", "request_id")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    request_id: str
    def __init__(self, session_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class AwaitPermissionResponse(_message.Message):
    __slots__ = ("resolution",)
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    resolution: _events_pb2.PermissionResolved
    def __init__(self, resolution: _Optional[_Union[_events_pb2.PermissionResolved, _Mapping]] = ...) -> None: ...

class WithdrawPermissionRequest(_message.Message):
    __slots__ = ("session_id", "request_id", "reason")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    request_id: str
    reason: str
    def __init__(self, session_id: _Optional[str] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class WithdrawPermissionResponse(_message.Message):
    __slots__ = ("won", "resolution")
    WON_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    won: bool
    resolution: _events_pb2.PermissionResolved
    def __init__(self, won: _Optional[bool] = ..., resolution: _Optional[_Union[_events_pb2.PermissionResolved, _Mapping]] = ...) -> None: ...
