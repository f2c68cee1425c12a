from toolview.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StopReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STOP_REASON_UNSPECIFIED: _ClassVar[StopReason]
    STOP_REASON_END_TURN: _ClassVar[StopReason]
    STOP_REASON_MAX_TOKENS: _ClassVar[StopReason]
    STOP_REASON_MAX_TURN_REQUESTS: _ClassVar[StopReason]
    STOP_REASON_REFUSAL: _ClassVar[StopReason]
    STOP_REASON_CANCELLED: _ClassVar[StopReason]

class MessageRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MESSAGE_ROLE_UNSPECIFIED: _ClassVar[MessageRole]
    MESSAGE_ROLE_USER: _ClassVar[MessageRole]
    MESSAGE_ROLE_ASSISTANT: _ClassVar[MessageRole]
    MESSAGE_ROLE_REASONING: _ClassVar[MessageRole]

class PermissionOptionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PERMISSION_OPTION_KIND_UNSPECIFIED: _ClassVar[PermissionOptionKind]
    PERMISSION_OPTION_KIND_ALLOW_ONCE: _ClassVar[PermissionOptionKind]
    PERMISSION_OPTION_KIND_ALLOW_ALWAYS: _ClassVar[PermissionOptionKind]
    PERMISSION_OPTION_KIND_REJECT_ONCE: _ClassVar[PermissionOptionKind]
    PERMISSION_OPTION_KIND_REJECT_ALWAYS: _ClassVar[PermissionOptionKind]
STOP_REASON_UNSPECIFIED: StopReason
STOP_REASON_END_TURN: StopReason
STOP_REASON_MAX_TOKENS: StopReason
STOP_REASON_MAX_TURN_REQUESTS: StopReason
STOP_REASON_REFUSAL: StopReason
STOP_REASON_CANCELLED: StopReason
MESSAGE_ROLE_UNSPECIFIED: MessageRole
MESSAGE_ROLE_USER: MessageRole
MESSAGE_ROLE_ASSISTANT: MessageRole
MESSAGE_ROLE_REASONING: MessageRole
PERMISSION_OPTION_KIND_UNSPECIFIED: PermissionOptionKind
PERMISSION_OPTION_KIND_ALLOW_ONCE: PermissionOptionKind
PERMISSION_OPTION_KIND_ALLOW_ALWAYS: PermissionOptionKind
PERMISSION_OPTION_KIND_REJECT_ONCE: PermissionOptionKind
PERMISSION_OPTION_KIND_REJECT_ALWAYS: PermissionOptionKind

class ToolEvent(_message.Message):
    __slots__ = ("session_id", "event_id", "session_started", "call_started", "call_output", "call_finished", "turn_started", "turn_finished", "message_started", "message_delta", "message_finished", "permission_requested", "permission_resolved", "call_input_delta", "call_input_complete", "session_ended")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_STARTED_FIELD_NUMBER: _ClassVar[int]
    CALL_STARTED_FIELD_NUMBER: _ClassVar[int]
    CALL_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    CALL_FINISHED_FIELD_NUMBER: _ClassVar[int]
    TURN_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_FINISHED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_STARTED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_DELTA_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FINISHED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    CALL_INPUT_DELTA_FIELD_NUMBER: _ClassVar[int]
    CALL_INPUT_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ENDED_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    event_id: str
    session_started: SessionStarted
    call_started: ToolCallStarted
    call_output: ToolCallOutput
    call_finished: ToolCallFinished
    turn_started: TurnStarted
    turn_finished: TurnFinished
    message_started: MessageStarted
    message_delta: MessageDelta
    message_finished: MessageFinished
    permission_requested: PermissionRequested
    permission_resolved: PermissionResolved
    call_input_delta: ToolCallInputDelta
    call_input_complete: ToolCallInputComplete
    session_ended: SessionEnded
    def __init__(self, session_id: _Optional[str] = ..., event_id: _Optional[str] = ..., session_started: _Optional[_Union[SessionStarted, _Mapping]] = ..., call_started: _Optional[_Union[ToolCallStarted, _Mapping]] = ..., call_output: _Optional[_Union[ToolCallOutput, _Mapping]] = ..., call_finished: _Optional[_Union[ToolCallFinished, _Mapping]] = ..., turn_started: _Optional[_Union[TurnStarted, _Mapping]] = ..., turn_finished: _Optional[_Union[TurnFinished, _Mapping]] = ..., message_started: _Optional[_Union[MessageStarted, _Mapping]] = ..., message_delta: _Optional[_Union[MessageDelta, _Mapping]] = ..., message_finished: _Optional[_Union[MessageFinished, _Mapping]] = ..., permission_requested: _Optional[_Union[PermissionRequested, _Mapping]] = ..., permission_resolved: _Optional[_Union[PermissionResolved, _Mapping]] = ..., call_input_delta: _Optional[_Union[ToolCallInputDelta, _Mapping]] = ..., call_input_complete: _Optional[_Union[ToolCallInputComplete, _Mapping]] = ..., session_ended: _Optional[_Union[SessionEnded, _Mapping]] = ...) -> None: ...

class SessionStarted(_message.Message):
    __slots__ = ("cwd",)
    CWD_FIELD_NUMBER: _ClassVar[int]
    cwd: str
    def __init__(self, cwd: _Optional[str] = ...) -> None: ...

class SessionEnded(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class ToolCallStarted(_message.Message):
    __slots__ = ("call_id", "tool_name", "arguments_json", "view", "input_streaming", "parent_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    INPUT_STREAMING_FIELD_NUMBER: _ClassVar[int]
    PARENT_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_name: str
    arguments_json: str
    view: _views_pb2.ToolCallView
    input_streaming: bool
    parent_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., arguments_json: _Optional[str] = ..., view: _Optional[_Union[_views_pb2.ToolCallView, _Mapping]] = ..., input_streaming: _Optional[bool] = ..., parent_call_id: _Optional[str] = ...) -> None: ...

class ToolCallInputDelta(_message.Message):
    __slots__ = ("call_id", "text")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    text: str
    def __init__(self, call_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class ToolCallInputComplete(_message.Message):
    __slots__ = ("call_id", "arguments_json", "view")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    arguments_json: str
    view: _views_pb2.ToolCallView
    def __init__(self, call_id: _Optional[str] = ..., arguments_json: _Optional[str] = ..., view: _Optional[_Union[_views_pb2.ToolCallView, _Mapping]] = ...) -> None: ...

class ToolCallOutput(_message.Message):
    __slots__ = ("call_id", "data")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    data: str
    def __init__(self, call_id: _Optional[str] = ..., data: _Optional[str] = ...) -> None: ...

class ToolCallFinished(_message.Message):
    __slots__ = ("call_id", "content", "is_error", "meta_json", "view")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    META_JSON_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    content: _containers.RepeatedCompositeFieldContainer[_views_pb2.ContentBlock]
    is_error: bool
    meta_json: str
    view: _views_pb2.ToolResultView
    def __init__(self, call_id: _Optional[str] = ..., content: _Optional[_Iterable[_Union[_views_pb2.ContentBlock, _Mapping]]] = ..., is_error: _Optional[bool] = ..., meta_json: _Optional[str] = ..., view: _Optional[_Union[_views_pb2.ToolResultView, _Mapping]] = ...) -> None: ...

class TurnStarted(_message.Message):
    __slots__ = ("turn_id",)
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    turn_id: str
    def __init__(self, turn_id: _Optional[str] = ...) -> None: ...

class TokenUsage(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens", "context_tokens", "context_window")
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHED_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    REASONING_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_WINDOW_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int
    reasoning_tokens: int
    context_tokens: int
    context_window: int
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cached_input_tokens: _Optional[int] = ..., reasoning_tokens: _Optional[int] = ..., context_tokens: _Optional[int] = ..., context_window: _Optional[int] = ...) -> None: ...

class TurnFinished(_message.Message):
    __slots__ = ("turn_id", "stop_reason", "usage")
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    turn_id: str
    stop_reason: StopReason
    usage: TokenUsage
    def __init__(self, turn_id: _Optional[str] = ..., stop_reason: _Optional[_Union[StopReason, str]] = ..., usage: _Optional[_Union[TokenUsage, _Mapping]] = ...) -> None: ...

class MessageStarted(_message.Message):
    __slots__ = ("message_id", "role", "text", "parent_call_id")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PARENT_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    role: MessageRole
    text: str
    parent_call_id: str
    def __init__(self, message_id: _Optional[str] = ..., role: _Optional[_Union[MessageRole, str]] = ..., text: _Optional[str] = ..., parent_call_id: _Optional[str] = ...) -> None: ...

class MessageDelta(_message.Message):
    __slots__ = ("message_id", "text")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    text: str
    def __init__(self, message_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class MessageFinished(_message.Message):
    __slots__ = ("message_id",)
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    def __init__(self, message_id: _Optional[str] = ...) -> None: ...

class PermissionOption(_message.Message):
    __slots__ = ("option_id", "name", "kind")
    OPTION_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    option_id: str
    name: str
    kind: PermissionOptionKind
    def __init__(self, option_id: _Optional[str] = ..., name: _Optional[str] = ..., kind: _Optional[_Union[PermissionOptionKind, str]] = ...) -> None: ...

class PermissionRequested(_message.Message):
    __slots__ = ("request_id", "call_id", "title", "description", "options", "expiry_option_id", "timeout_ms", "expires_at_unix_ms")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    EXPIRY_OPTION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    call_id: str
    title: str
    description: str
    options: _containers.RepeatedCompositeFieldContainer[PermissionOption]
    expiry_option_id: str
    timeout_ms: int
    expires_at_unix_ms: int
    def __init__(self, request_id: _Optional[str] = ..., call_id: _Optional[str] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., options: _Optional[_Iterable[_Union[PermissionOption, _Mapping]]] = ..., expiry_option_id: _Optional[str] = ..., timeout_ms: _Optional[int] = ..., expires_at_unix_ms: _Optional[int] = ...) -> None: ...

class Responder(_message.Message):
    __slots__ = ("subject", "via")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    VIA_FIELD_NUMBER: _ClassVar[int]
    subject: str
    via: str
    def __init__(self, subject: _Optional[str] = ..., via: _Optional[str] = ...) -> None: ...

class PermissionExpired(_message.Message):
    __slots__ = ("option_id",)
    OPTION_ID_FIELD_NUMBER: _ClassVar[int]
    option_id: str
    def __init__(self, option_id: _Optional[str] = ...) -> None: ...

class PermissionWithdrawn(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PermissionResolved(_message.Message):
    __slots__ = ("request_id", "selected_option_id", "expired", "withdrawn", "reason", "resolved_by", "resolved_at_unix_ms")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SELECTED_OPTION_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_BY_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_AT_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    selected_option_id: str
    expired: PermissionExpired
    withdrawn: PermissionWithdrawn
    reason: str
    resolved_by: Responder
    resolved_at_unix_ms: int
    def __init__(self, request_id: _Optional[str] = ..., selected_option_id: _Optional[str] = ..., expired: _Optional[_Union[PermissionExpired, _Mapping]] = ..., withdrawn: _Optional[_Union[PermissionWithdrawn, _Mapping]] = ..., reason: _Optional[str] = ..., resolved_by: _Optional[_Union[Responder, _Mapping]] = ..., resolved_at_unix_ms: _Optional[int] = ...) -> None: ...
