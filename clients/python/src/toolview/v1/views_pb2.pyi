from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ToolKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_KIND_UNSPECIFIED: _ClassVar[ToolKind]
    TOOL_KIND_READ: _ClassVar[ToolKind]
    TOOL_KIND_EDIT: _ClassVar[ToolKind]
    TOOL_KIND_DELETE: _ClassVar[ToolKind]
    TOOL_KIND_MOVE: _ClassVar[ToolKind]
    TOOL_KIND_SEARCH: _ClassVar[ToolKind]
    TOOL_KIND_EXECUTE: _ClassVar[ToolKind]
    TOOL_KIND_THINK: _ClassVar[ToolKind]
    TOOL_KIND_FETCH: _ClassVar[ToolKind]
    TOOL_KIND_SWITCH_MODE: _ClassVar[ToolKind]
    TOOL_KIND_OTHER: _ClassVar[ToolKind]

class DiffOp(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DIFF_OP_UNSPECIFIED: _ClassVar[DiffOp]
    DIFF_OP_CONTEXT: _ClassVar[DiffOp]
    DIFF_OP_REMOVED: _ClassVar[DiffOp]
    DIFF_OP_ADDED: _ClassVar[DiffOp]
TOOL_KIND_UNSPECIFIED: ToolKind
TOOL_KIND_READ: ToolKind
TOOL_KIND_EDIT: ToolKind
TOOL_KIND_DELETE: ToolKind
TOOL_KIND_MOVE: ToolKind
TOOL_KIND_SEARCH: ToolKind
TOOL_KIND_EXECUTE: ToolKind
TOOL_KIND_THINK: ToolKind
TOOL_KIND_FETCH: ToolKind
TOOL_KIND_SWITCH_MODE: ToolKind
TOOL_KIND_OTHER: ToolKind
DIFF_OP_UNSPECIFIED: DiffOp
DIFF_OP_CONTEXT: DiffOp
DIFF_OP_REMOVED: DiffOp
DIFF_OP_ADDED: DiffOp

class FileLocation(_message.Message):
    __slots__ = ("path", "line")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    path: str
    line: int
    def __init__(self, path: _Optional[str] = ..., line: _Optional[int] = ...) -> None: ...

class FileDiff(_message.Message):
    __slots__ = ("path", "old_text", "new_text", "runs")
    PATH_FIELD_NUMBER: _ClassVar[int]
    OLD_TEXT_FIELD_NUMBER: _ClassVar[int]
    NEW_TEXT_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    path: str
    old_text: str
    new_text: str
    runs: _containers.RepeatedCompositeFieldContainer[DiffRun]
    def __init__(self, path: _Optional[str] = ..., old_text: _Optional[str] = ..., new_text: _Optional[str] = ..., runs: _Optional[_Iterable[_Union[DiffRun, _Mapping]]] = ...) -> None: ...

class DiffRun(_message.Message):
    __slots__ = ("op", "lines")
    OP_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    op: DiffOp
    lines: int
    def __init__(self, op: _Optional[_Union[DiffOp, str]] = ..., lines: _Optional[int] = ...) -> None: ...

class ContentBlock(_message.Message):
    __slots__ = ("text", "reasoning", "image", "resource_link")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_LINK_FIELD_NUMBER: _ClassVar[int]
    text: TextContent
    reasoning: ReasoningContent
    image: ImageContent
    resource_link: ResourceLinkContent
    def __init__(self, text: _Optional[_Union[TextContent, _Mapping]] = ..., reasoning: _Optional[_Union[ReasoningContent, _Mapping]] = ..., image: _Optional[_Union[ImageContent, _Mapping]] = ..., resource_link: _Optional[_Union[ResourceLinkContent, _Mapping]] = ...) -> None: ...

class TextContent(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ReasoningContent(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ImageContent(_message.Message):
    __slots__ = ("mime_type", "data", "uri")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    data: bytes
    uri: str
    def __init__(self, mime_type: _Optional[str] = ..., data: _Optional[bytes] = ..., uri: _Optional[str] = ...) -> None: ...

class ResourceLinkContent(_message.Message):
    __slots__ = ("uri", "name", "mime_type")
    URI_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    uri: str
    name: str
    mime_type: str
    def __init__(self, uri: _Optional[str] = ..., name: _Optional[str] = ..., mime_type: _Optional[str] = ...) -> None: ...

class ReadLine(_message.Message):
    __slots__ = ("number", "text")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    number: int
    text: str
    def __init__(self, number: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class SearchFileMatches(_message.Message):
    __slots__ = ("path", "matches")
    PATH_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    path: str
    matches: _containers.RepeatedCompositeFieldContainer[SearchMatch]
    def __init__(self, path: _Optional[str] = ..., matches: _Optional[_Iterable[_Union[SearchMatch, _Mapping]]] = ...) -> None: ...

class SearchMatch(_message.Message):
    __slots__ = ("line_number", "line")
    LINE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    line_number: int
    line: str
    def __init__(self, line_number: _Optional[int] = ..., line: _Optional[str] = ...) -> None: ...

class WebSource(_message.Message):
    __slots__ = ("url", "title", "snippet", "published_at")
    URL_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SNIPPET_FIELD_NUMBER: _ClassVar[int]
    PUBLISHED_AT_FIELD_NUMBER: _ClassVar[int]
    url: str
    title: str
    snippet: str
    published_at: str
    def __init__(self, url: _Optional[str] = ..., title: _Optional[str] = ..., snippet: _Optional[str] = ..., published_at: _Optional[str] = ...) -> None: ...

class ToolCallView(_message.Message):
    __slots__ = ("generic", "terminal", "diff")
    GENERIC_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    generic: GenericCallView
    terminal: TerminalCallView
    diff: DiffCallView
    def __init__(self, generic: _Optional[_Union[GenericCallView, _Mapping]] = ..., terminal: _Optional[_Union[TerminalCallView, _Mapping]] = ..., diff: _Optional[_Union[DiffCallView, _Mapping]] = ...) -> None: ...

class GenericCallView(_message.Message):
    __slots__ = ("title", "kind", "raw_input", "content", "locations")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    RAW_INPUT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    title: str
    kind: ToolKind
    raw_input: _struct_pb2.Value
    content: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    locations: _containers.RepeatedCompositeFieldContainer[FileLocation]
    def __init__(self, title: _Optional[str] = ..., kind: _Optional[_Union[ToolKind, str]] = ..., raw_input: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., content: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ..., locations: _Optional[_Iterable[_Union[FileLocation, _Mapping]]] = ...) -> None: ...

class TerminalCallView(_message.Message):
    __slots__ = ("title", "description", "cwd")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    title: str
    description: str
    cwd: str
    def __init__(self, title: _Optional[str] = ..., description: _Optional[str] = ..., cwd: _Optional[str] = ...) -> None: ...

class DiffCallView(_message.Message):
    __slots__ = ("title", "diffs", "locations")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DIFFS_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    title: str
    diffs: _containers.RepeatedCompositeFieldContainer[FileDiff]
    locations: _containers.RepeatedCompositeFieldContainer[FileLocation]
    def __init__(self, title: _Optional[str] = ..., diffs: _Optional[_Iterable[_Union[FileDiff, _Mapping]]] = ..., locations: _Optional[_Iterable[_Union[FileLocation, _Mapping]]] = ...) -> None: ...

class ToolResultView(_message.Message):
    __slots__ = ("generic", "terminal", "diff", "search", "read", "web")
    GENERIC_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    WEB_FIELD_NUMBER: _ClassVar[int]
    generic: GenericResultView
    terminal: TerminalResultView
    diff: DiffResultView
    search: SearchResultView
    read: ReadResultView
    web: WebResultView
    def __init__(self, generic: _Optional[_Union[GenericResultView, _Mapping]] = ..., terminal: _Optional[_Union[TerminalResultView, _Mapping]] = ..., diff: _Optional[_Union[DiffResultView, _Mapping]] = ..., search: _Optional[_Union[SearchResultView, _Mapping]] = ..., read: _Optional[_Union[ReadResultView, _Mapping]] = ..., web: _Optional[_Union[WebResultView, _Mapping]] = ...) -> None: ...

class GenericResultView(_message.Message):
    __slots__ = ("title", "content")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    title: str
    content: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    def __init__(self, title: _Optional[str] = ..., content: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ...) -> None: ...

class TerminalResultView(_message.Message):
    __slots__ = ("title", "output", "exit_code", "signal")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    title: str
    output: str
    exit_code: int
    signal: str
    def __init__(self, title: _Optional[str] = ..., output: _Optional[str] = ..., exit_code: _Optional[int] = ..., signal: _Optional[str] = ...) -> None: ...

class DiffResultView(_message.Message):
    __slots__ = ("title", "diffs", "locations")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DIFFS_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    title: str
    diffs: _containers.RepeatedCompositeFieldContainer[FileDiff]
    locations: _containers.RepeatedCompositeFieldContainer[FileLocation]
    def __init__(self, title: _Optional[str] = ..., diffs: _Optional[_Iterable[_Union[FileDiff, _Mapping]]] = ..., locations: _Optional[_Iterable[_Union[FileLocation, _Mapping]]] = ...) -> None: ...

class SearchResultView(_message.Message):
    __slots__ = ("title", "truncated", "total", "matches", "paths")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    title: str
    truncated: bool
    total: int
    matches: SearchMatches
    paths: SearchPaths
    def __init__(self, title: _Optional[str] = ..., truncated: _Optional[bool] = ..., total: _Optional[int] = ..., matches: _Optional[_Union[SearchMatches, _Mapping]] = ..., paths: _Optional[_Union[SearchPaths, _Mapping]] = ...) -> None: ...

class SearchMatches(_message.Message):
    __slots__ = ("files",)
    FILES_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[SearchFileMatches]
    def __init__(self, files: _Optional[_Iterable[_Union[SearchFileMatches, _Mapping]]] = ...) -> None: ...

class SearchPaths(_message.Message):
    __slots__ = ("paths",)
    PATHS_FIELD_NUMBER: _ClassVar[int]
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, paths: _Optional[_Iterable[str]] = ...) -> None: ...

class ReadResultView(_message.Message):
    __slots__ = ("title", "path", "offset", "lines", "total_lines", "lang", "content")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    LANG_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    title: str
    path: str
    offset: int
    lines: _containers.RepeatedCompositeFieldContainer[ReadLine]
    total_lines: int
    lang: str
    content: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    def __init__(self, title: _Optional[str] = ..., path: _Optional[str] = ..., offset: _Optional[int] = ..., lines: _Optional[_Iterable[_Union[ReadLine, _Mapping]]] = ..., total_lines: _Optional[int] = ..., lang: _Optional[str] = ..., content: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ...) -> None: ...

class WebResultView(_message.Message):
    __slots__ = ("title", "search", "fetch")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    FETCH_FIELD_NUMBER: _ClassVar[int]
    title: str
    search: WebSearch
    fetch: WebFetch
    def __init__(self, title: _Optional[str] = ..., search: _Optional[_Union[WebSearch, _Mapping]] = ..., fetch: _Optional[_Union[WebFetch, _Mapping]] = ...) -> None: ...

class WebSearch(_message.Message):
    __slots__ = ("sources", "answer", "truncated")
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    sources: _containers.RepeatedCompositeFieldContainer[WebSource]
    answer: str
    truncated: bool
    def __init__(self, sources: _Optional[_Iterable[_Union[WebSource, _Mapping]]] = ..., answer: _Optional[str] = ..., truncated: _Optional[bool] = ...) -> None: ...

class WebFetch(_message.Message):
    __slots__ = ("url", "status_code", "truncated")
    URL_FIELD_NUMBER: _ClassVar[int]
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    url: str
    status_code: int
    truncated: bool
    def __init__(self, url: _Optional[str] = ..., status_code: _Optional[int] = ..., truncated: _Optional[bool] = ...) -> None: ...
