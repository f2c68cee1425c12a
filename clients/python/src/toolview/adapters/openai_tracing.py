"""An OpenAI Agents SDK tracing processor that publishes every run as it happens: one line, for
every ``Runner.run`` in the process, with no hooks passed to each run.

    from agents import add_trace_processor
    from toolview import Client
    from toolview.adapters.openai_tracing import ToolviewTracingProcessor

    client = Client("127.0.0.1:50051")
    add_trace_processor(ToolviewTracingProcessor(client))

Each trace (a run, or a ``trace(...)`` block) is a turn in the session named by the trace's
``group_id`` (the SDK's conversation id), else by the trace's id, or in ``session_id`` when one is
given. The prompt and the model's words come from the model spans (what the model was sent and
said); each function tool call starts when its span starts — so the card shows running while
the tool works — with the model's call id and arguments, and finishes when its span ends, with
its output or its error. An agent used as a tool runs its calls under that tool's call.

OTLP ingestion (OpenInference's spans exported to toolview) needs no code at all, but a span is
exported when it ends, in batches: its card arrives finished, seconds late. Use one or the other
for a session, not both. The SDK keeps a span's input out of its traces when
``trace_include_sensitive_data`` is off; the cards then show the tool's name only.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict, deque
from typing import Any, Deque, Dict, List, Optional, Tuple

from agents.tracing import Span, Trace, TracingProcessor
from agents.tracing.span_data import FunctionSpanData, GenerationSpanData, ResponseSpanData

from .._events import Usage
from .._ids import safe_id
from ..client import Call, Client, Session, Turn

TRACE_LIMIT = 1_000
"""Traces followed at once; past it the oldest is forgotten (a trace that never ends)."""

SPAN_LIMIT = 10_000
"""Spans remembered per trace (for nesting), and calls waiting for their span."""


def _field(item: Any, name: str) -> Any:
    """A field of an SDK object or of its dict form."""
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _text(content: Any) -> str:
    """A message's text: a string, or its text parts joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [_field(p, "text") for p in content]
    return "\n".join(p for p in parts if isinstance(p, str) and p)


def _output_text(output: Any) -> str:
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    try:
        return json.dumps(output)
    except (TypeError, ValueError):
        return str(output)


def _count(usage: Any, *names: str) -> int:
    """The first of ``names`` a usage has (the Responses API's names, or Chat Completions')."""
    for name in names:
        value = _field(usage, name)
        if isinstance(value, int) and value > 0:
            return value
    return 0


class _Trace:
    """One trace's state: its session and turn, the calls the model asked for (by tool name,
    oldest first) and the calls running (by span), and each span's parent."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.turn: Turn = session.start_turn()
        self.prompted = False
        self.asked: Dict[str, Deque[Tuple[str, str]]] = {}
        self.calls: "OrderedDict[str, Call]" = OrderedDict()
        self.parents: "OrderedDict[str, Optional[str]]" = OrderedDict()
        self.input_tokens = 0
        self.output_tokens = 0

    def remember(self, span: Span[Any]) -> None:
        self.parents[span.span_id] = span.parent_id
        while len(self.parents) > SPAN_LIMIT:
            self.parents.popitem(last=False)

    def parent_call(self, span: Span[Any]) -> Optional[Call]:
        """The call of the nearest function span above ``span`` (an agent used as a tool)."""
        at = span.parent_id
        for _ in range(len(self.parents) + 1):
            if at is None:
                return None
            if at in self.calls:
                return self.calls[at]
            at = self.parents.get(at)
        return None


class ToolviewTracingProcessor(TracingProcessor):
    """Publishes traces as they happen (see the module doc)."""

    def __init__(self, client: Client, session_id: Optional[str] = None) -> None:
        self._client = client
        self._session_id = session_id
        self._traces: "OrderedDict[str, _Trace]" = OrderedDict()
        # The SDK may call a processor from several threads (runs in threads, the loop's own).
        self._lock = threading.Lock()

    def on_trace_start(self, trace: Trace) -> None:
        exported = trace.export() or {}
        group = exported.get("group_id")
        session_id = self._session_id or safe_id(
            group if isinstance(group, str) and group else trace.trace_id
        )
        with self._lock:
            self._traces[trace.trace_id] = _Trace(self._client.session(session_id))
            while len(self._traces) > TRACE_LIMIT:
                self._traces.popitem(last=False)

    def on_trace_end(self, trace: Trace) -> None:
        with self._lock:
            state = self._traces.pop(trace.trace_id, None)
        if state is not None:
            state.turn.finish(
                "end_turn", Usage(input_tokens=state.input_tokens, output_tokens=state.output_tokens)
            )

    def on_span_start(self, span: Span[Any]) -> None:
        with self._lock:
            state = self._traces.get(span.trace_id)
            if state is None:
                return
            state.remember(span)
            data = span.span_data
            if isinstance(data, FunctionSpanData):
                asked = state.asked.get(data.name)
                call_id, args = asked.popleft() if asked else (None, data.input or "")
                call = state.session.start_call(
                    data.name, args, call_id=call_id, parent=state.parent_call(span)
                )
                state.calls[span.span_id] = call
                while len(state.calls) > SPAN_LIMIT:
                    state.calls.popitem(last=False)
            elif isinstance(data, GenerationSpanData):
                self._prompt(state, span, data.input)

    def on_span_end(self, span: Span[Any]) -> None:
        with self._lock:
            state = self._traces.get(span.trace_id)
            if state is None:
                return
            data = span.span_data
            if isinstance(data, FunctionSpanData):
                call = state.calls.pop(span.span_id, None)
                if call is None:
                    return
                if span.error:
                    message = _field(span.error, "message") or "failed"
                    detail = _field(_field(span.error, "data") or {}, "error")
                    call.finish(f"{message}: {detail}" if detail else message, is_error=True)
                else:
                    call.finish(_output_text(data.output))
            elif isinstance(data, GenerationSpanData):
                self._prompt(state, span, data.input)
                self._said(state, span, list(data.output or []), data.usage)
            elif isinstance(data, ResponseSpanData):
                self._prompt(state, span, data.input)
                response = data.response
                output = list(_field(response, "output") or []) if response is not None else []
                usage = _field(response, "usage") if response is not None else None
                self._said(state, span, output, usage)

    def _prompt(self, state: _Trace, span: Span[Any], given: Any) -> None:
        """The trace's prompt, once: the last user message the model was first sent."""
        if state.prompted or not given:
            return
        messages: List[Any] = [{"role": "user", "content": given}] if isinstance(given, str) else list(given)
        users = [_text(_field(m, "content")) for m in messages if _field(m, "role") == "user"]
        if users and users[-1]:
            state.prompted = True
            state.session.message("user", users[-1], parent=state.parent_call(span))

    def _said(self, state: _Trace, span: Span[Any], output: List[Any], usage: Any) -> None:
        """The model's words, and the calls it asked for (taken by the function spans)."""
        parent = state.parent_call(span)
        for item in output:
            text = _text(_field(item, "content"))
            if text and _field(item, "role") == "assistant":
                state.session.message("assistant", text, parent=parent)
            # Chat Completions: tool calls on the message; Responses: function_call items.
            calls = _field(item, "tool_calls") or ([item] if _field(item, "type") == "function_call" else [])
            for c in calls:
                function = _field(c, "function") or c
                name, args = _field(function, "name"), _field(function, "arguments")
                call_id = _field(c, "call_id") or _field(c, "id")
                if isinstance(name, str) and isinstance(call_id, str):
                    asked = state.asked.setdefault(name, deque(maxlen=SPAN_LIMIT))
                    asked.append((call_id, args if isinstance(args, str) else ""))
        if usage:
            state.input_tokens += _count(usage, "input_tokens", "prompt_tokens")
            state.output_tokens += _count(usage, "output_tokens", "completion_tokens")

    def shutdown(self) -> None:
        self.force_flush()

    def force_flush(self) -> None:
        self._client.flush()
