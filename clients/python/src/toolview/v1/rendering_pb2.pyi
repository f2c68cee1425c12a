from toolview.v1 import events_pb2 as _events_pb2
from toolview.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Target(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TARGET_UNSPECIFIED: _ClassVar[Target]
    TARGET_VIEW: _ClassVar[Target]
    TARGET_ACP: _ClassVar[Target]
    TARGET_AG_UI: _ClassVar[Target]
    TARGET_MARKDOWN: _ClassVar[Target]
    TARGET_ANSI: _ClassVar[Target]
    TARGET_AI_SDK: _ClassVar[Target]

class CallStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CALL_STATUS_UNSPECIFIED: _ClassVar[CallStatus]
    CALL_STATUS_IN_PROGRESS: _ClassVar[CallStatus]
    CALL_STATUS_COMPLETED: _ClassVar[CallStatus]
    CALL_STATUS_FAILED: _ClassVar[CallStatus]
    CALL_STATUS_PENDING: _ClassVar[CallStatus]

class MessageStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MESSAGE_STATUS_UNSPECIFIED: _ClassVar[MessageStatus]
    MESSAGE_STATUS_STREAMING: _ClassVar[MessageStatus]
    MESSAGE_STATUS_COMPLETE: _ClassVar[MessageStatus]
TARGET_UNSPECIFIED: Target
TARGET_VIEW: Target
TARGET_ACP: Target
TARGET_AG_UI: Target
TARGET_MARKDOWN: Target
TARGET_ANSI: Target
TARGET_AI_SDK: Target
CALL_STATUS_UNSPECIFIED: CallStatus
CALL_STATUS_IN_PROGRESS: CallStatus
CALL_STATUS_COMPLETED: CallStatus
CALL_STATUS_FAILED: CallStatus
CALL_STATUS_PENDING: CallStatus
MESSAGE_STATUS_UNSPECIFIED: MessageStatus
MESSAGE_STATUS_STREAMING: MessageStatus
MESSAGE_STATUS_COMPLETE: MessageStatus

class Capabilities(_message.Message):
    __slots__ = ("terminal", "diff", "read", "search", "web", "max_output_bytes", "tool_colors", "output_appends", "reasoning")
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    WEB_FIELD_NUMBER: _ClassVar[int]
    MAX_OUTPUT_BYTES_FIELD_NUMBER: _ClassVar[int]
    TOOL_COLORS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_APPENDS_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    terminal: bool
    diff: bool
    read: bool
    search: bool
    web: bool
    max_output_bytes: int
    tool_colors: bool
    output_appends: bool
    reasoning: bool
    def __init__(self, terminal: _Optional[bool] = ..., diff: _Optional[bool] = ..., read: _Optional[bool] = ..., search: _Optional[bool] = ..., web: _Optional[bool] = ..., max_output_bytes: _Optional[int] = ..., tool_colors: _Optional[bool] = ..., output_appends: _Optional[bool] = ..., reasoning: _Optional[bool] = ...) -> None: ...

class Cursor(_message.Message):
    __slots__ = ("offset", "epoch")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    offset: int
    epoch: str
    def __init__(self, offset: _Optional[int] = ..., epoch: _Optional[str] = ...) -> None: ...

class RenderedUpdate(_message.Message):
    __slots__ = ("cursor", "call_id", "message_id", "request_id", "view", "acp", "ag_ui", "markdown", "ansi", "ai_sdk")
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    ACP_FIELD_NUMBER: _ClassVar[int]
    AG_UI_FIELD_NUMBER: _ClassVar[int]
    MARKDOWN_FIELD_NUMBER: _ClassVar[int]
    ANSI_FIELD_NUMBER: _ClassVar[int]
    AI_SDK_FIELD_NUMBER: _ClassVar[int]
    cursor: Cursor
    call_id: str
    message_id: str
    request_id: str
    view: ViewUpdate
    acp: JsonMessages
    ag_ui: JsonMessages
    markdown: str
    ansi: str
    ai_sdk: JsonMessages
    def __init__(self, cursor: _Optional[_Union[Cursor, _Mapping]] = ..., call_id: _Optional[str] = ..., message_id: _Optional[str] = ..., request_id: _Optional[str] = ..., view: _Optional[_Union[ViewUpdate, _Mapping]] = ..., acp: _Optional[_Union[JsonMessages, _Mapping]] = ..., ag_ui: _Optional[_Union[JsonMessages, _Mapping]] = ..., markdown: _Optional[str] = ..., ansi: _Optional[str] = ..., ai_sdk: _Optional[_Union[JsonMessages, _Mapping]] = ...) -> None: ...

class JsonMessages(_message.Message):
    __slots__ = ("json",)
    JSON_FIELD_NUMBER: _ClassVar[int]
    json: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, json: _Optional[_Iterable[str]] = ...) -> None: ...

class ViewUpdate(_message.Message):
    __slots__ = ("card", "session", "output_appended", "message", "message_appended", "turn", "permission", "input_appended", "session_ended")
    CARD_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_APPENDED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_APPENDED_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    INPUT_APPENDED_FIELD_NUMBER: _ClassVar[int]
    SESSION_ENDED_FIELD_NUMBER: _ClassVar[int]
    card: CardSnapshot
    session: SessionHeader
    output_appended: OutputAppended
    message: MessageSnapshot
    message_appended: MessageAppended
    turn: TurnUpdate
    permission: PermissionSnapshot
    input_appended: InputAppended
    session_ended: SessionEndedUpdate
    def __init__(self, card: _Optional[_Union[CardSnapshot, _Mapping]] = ..., session: _Optional[_Union[SessionHeader, _Mapping]] = ..., output_appended: _Optional[_Union[OutputAppended, _Mapping]] = ..., message: _Optional[_Union[MessageSnapshot, _Mapping]] = ..., message_appended: _Optional[_Union[MessageAppended, _Mapping]] = ..., turn: _Optional[_Union[TurnUpdate, _Mapping]] = ..., permission: _Optional[_Union[PermissionSnapshot, _Mapping]] = ..., input_appended: _Optional[_Union[InputAppended, _Mapping]] = ..., session_ended: _Optional[_Union[SessionEndedUpdate, _Mapping]] = ...) -> None: ...

class OutputAppended(_message.Message):
    __slots__ = ("call_id", "text")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    text: str
    def __init__(self, call_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class InputAppended(_message.Message):
    __slots__ = ("call_id", "text")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    text: str
    def __init__(self, call_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class CardSnapshot(_message.Message):
    __slots__ = ("call_id", "tool_name", "status", "call", "result", "streamed", "input", "parent_call_id", "depth", "children", "mcp_app")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STREAMED_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    PARENT_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    MCP_APP_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_name: str
    status: CallStatus
    call: _views_pb2.ToolCallView
    result: _views_pb2.ToolResultView
    streamed: str
    input: str
    parent_call_id: str
    depth: int
    children: ChildProgress
    mcp_app: McpAppRef
    def __init__(self, call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., status: _Optional[_Union[CallStatus, str]] = ..., call: _Optional[_Union[_views_pb2.ToolCallView, _Mapping]] = ..., result: _Optional[_Union[_views_pb2.ToolResultView, _Mapping]] = ..., streamed: _Optional[str] = ..., input: _Optional[str] = ..., parent_call_id: _Optional[str] = ..., depth: _Optional[int] = ..., children: _Optional[_Union[ChildProgress, _Mapping]] = ..., mcp_app: _Optional[_Union[McpAppRef, _Mapping]] = ...) -> None: ...

class McpAppRef(_message.Message):
    __slots__ = ("resource_uri", "server_id", "server_hash", "structured_content_json")
    RESOURCE_URI_FIELD_NUMBER: _ClassVar[int]
    SERVER_ID_FIELD_NUMBER: _ClassVar[int]
    SERVER_HASH_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_CONTENT_JSON_FIELD_NUMBER: _ClassVar[int]
    resource_uri: str
    server_id: str
    server_hash: str
    structured_content_json: str
    def __init__(self, resource_uri: _Optional[str] = ..., server_id: _Optional[str] = ..., server_hash: _Optional[str] = ..., structured_content_json: _Optional[str] = ...) -> None: ...

class ChildProgress(_message.Message):
    __slots__ = ("running", "done", "failed", "latest")
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    running: int
    done: int
    failed: int
    latest: str
    def __init__(self, running: _Optional[int] = ..., done: _Optional[int] = ..., failed: _Optional[int] = ..., latest: _Optional[str] = ...) -> None: ...

class SessionHeader(_message.Message):
    __slots__ = ("cwd",)
    CWD_FIELD_NUMBER: _ClassVar[int]
    cwd: str
    def __init__(self, cwd: _Optional[str] = ...) -> None: ...

class SessionEndedUpdate(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class MessageSnapshot(_message.Message):
    __slots__ = ("message_id", "role", "text", "status", "parent_call_id", "depth")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PARENT_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    role: _events_pb2.MessageRole
    text: str
    status: MessageStatus
    parent_call_id: str
    depth: int
    def __init__(self, message_id: _Optional[str] = ..., role: _Optional[_Union[_events_pb2.MessageRole, str]] = ..., text: _Optional[str] = ..., status: _Optional[_Union[MessageStatus, str]] = ..., parent_call_id: _Optional[str] = ..., depth: _Optional[int] = ...) -> None: ...

class MessageAppended(_message.Message):
    __slots__ = ("message_id", "text")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    text: str
    def __init__(self, message_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class TurnUpdate(_message.Message):
    __slots__ = ("turn_id", "finished", "stop_reason", "usage")
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    turn_id: str
    finished: bool
    stop_reason: _events_pb2.StopReason
    usage: _events_pb2.TokenUsage
    def __init__(self, turn_id: _Optional[str] = ..., finished: _Optional[bool] = ..., stop_reason: _Optional[_Union[_events_pb2.StopReason, str]] = ..., usage: _Optional[_Union[_events_pb2.TokenUsage, _Mapping]] = ...) -> None: ...

class PermissionSnapshot(_message.Message):
    __slots__ = ("request", "resolution")
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    request: _events_pb2.PermissionRequested
    resolution: _events_pb2.PermissionResolved
    def __init__(self, request: _Optional[_Union[_events_pb2.PermissionRequested, _Mapping]] = ..., resolution: _Optional[_Union[_events_pb2.PermissionResolved, _Mapping]] = ...) -> None: ...
