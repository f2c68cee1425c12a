from toolview.v1 import events_pb2 as _events_pb2
from toolview.v1 import rendering_pb2 as _rendering_pb2
from toolview.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PresentRequest(_message.Message):
    __slots__ = ("tool_name", "arguments_json", "result", "call_view")
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CALL_VIEW_FIELD_NUMBER: _ClassVar[int]
    tool_name: str
    arguments_json: str
    result: PresentResult
    call_view: _views_pb2.ToolCallView
    def __init__(self, tool_name: _Optional[str] = ..., arguments_json: _Optional[str] = ..., result: _Optional[_Union[PresentResult, _Mapping]] = ..., call_view: _Optional[_Union[_views_pb2.ToolCallView, _Mapping]] = ...) -> None: ...

class PresentResult(_message.Message):
    __slots__ = ("content", "is_error", "meta_json", "view")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    META_JSON_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[_views_pb2.ContentBlock]
    is_error: bool
    meta_json: str
    view: _views_pb2.ToolResultView
    def __init__(self, content: _Optional[_Iterable[_Union[_views_pb2.ContentBlock, _Mapping]]] = ..., is_error: _Optional[bool] = ..., meta_json: _Optional[str] = ..., view: _Optional[_Union[_views_pb2.ToolResultView, _Mapping]] = ...) -> None: ...

class PresentResponse(_message.Message):
    __slots__ = ("call", "result")
    CALL_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    call: _views_pb2.ToolCallView
    result: _views_pb2.ToolResultView
    def __init__(self, call: _Optional[_Union[_views_pb2.ToolCallView, _Mapping]] = ..., result: _Optional[_Union[_views_pb2.ToolResultView, _Mapping]] = ...) -> None: ...

class RenderRequest(_message.Message):
    __slots__ = ("session_cwd", "target", "capabilities", "events")
    SESSION_CWD_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    session_cwd: str
    target: _rendering_pb2.Target
    capabilities: _rendering_pb2.Capabilities
    events: _containers.RepeatedCompositeFieldContainer[_events_pb2.ToolEvent]
    def __init__(self, session_cwd: _Optional[str] = ..., target: _Optional[_Union[_rendering_pb2.Target, str]] = ..., capabilities: _Optional[_Union[_rendering_pb2.Capabilities, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_events_pb2.ToolEvent, _Mapping]]] = ...) -> None: ...

class RenderResponse(_message.Message):
    __slots__ = ("updates",)
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    updates: _containers.RepeatedCompositeFieldContainer[_rendering_pb2.RenderedUpdate]
    def __init__(self, updates: _Optional[_Iterable[_Union[_rendering_pb2.RenderedUpdate, _Mapping]]] = ...) -> None: ...
