"""OpenAI Agents SDK run hooks that publish a run as a toolview turn: the model's messages and
reasoning, and each function tool call.

    from agents import Agent, Runner, function_tool
    from toolview.aio import AsyncClient
    from toolview.adapters.openai_agents import ToolviewRunHooks, attach_meta, tool_failure

    async with AsyncClient("127.0.0.1:50051") as client:
        hooks = ToolviewRunHooks(client.session("my-session"))
        await hooks.prompt("Make the port configurable.")
        result = await Runner.run(agent, "Make the port configurable.", hooks=hooks)

A call's id is the model's ``call_id`` and its arguments are the model's JSON text, so tools
named like toolview's built-in vocabularies (``read``, ``bash``, ``grep``, …, or Claude Code's
``Read``, ``Bash``, …) get their cards; any other tool gets the generic card. The tool's
return value (as the SDK hands it to ``on_tool_end``) is the result text.

The hooks carry no failure flag and no meta, so two helpers reach them from inside a tool:

- A tool that raises is published as failed when the SDK answers the model with its default
  error message. ``@function_tool(failure_error_function=tool_failure)`` also shows the error
  itself on the card (the model still gets the default message).
- ``attach_meta(ctx, {...})`` in a tool that takes the ``ToolContext`` gives its result the
  presentation meta of ``docs/producers.md`` (a read window, grep matches, a web fetch, …).

Both are kept by call id until the call's end (at most ``PENDING_LIMIT`` at once).

An agent used as a tool (``agent.as_tool(name, …, hooks=hooks.agent_tool(name))``) runs a
nested run: its calls and messages are published under that tool's call (docs/call-shapes.md#
nesting), its own agent tools nesting further. A nested run binds to the oldest call of its tool
that no nested run has taken yet (the SDK tells the nested hooks nothing of the call).

A tool with ``needs_approval`` stops the run; ``decide_interruptions(result)`` asks for each
approval through toolview (every UI watching the session shows the prompt on the call's card)
and returns the run's state with the decisions applied, for ``Runner.run`` to go on.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Dict, List, Mapping, Optional

from agents import RunContextWrapper, RunHooks, default_tool_error_function
from agents.models.fake_id import FAKE_RESPONSES_ID
from agents.tool_context import ToolContext

from .._events import Usage
from .._permissions import allow_always, allow_once, denial, reject_always, reject_once
from ..aio import AsyncCall, AsyncSession, AsyncTurn

PENDING_LIMIT = 10_000
"""Calls whose failure or meta waits for their end; past it the oldest is forgotten (a tool run
without these hooks never ends one)."""

_failures: "OrderedDict[str, str]" = OrderedDict()
_metas: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()


def _keep(table: "OrderedDict[str, Any]", call_id: str, value: Any) -> None:
    table[call_id] = value
    while len(table) > PENDING_LIMIT:
        table.popitem(last=False)


def tool_failure(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """A ``failure_error_function``: the call's card shows failed with the error; the model gets
    the SDK's default message."""
    if isinstance(ctx, ToolContext):
        _keep(_failures, ctx.tool_call_id, f"{type(error).__name__}: {error}")
    return default_tool_error_function(ctx, error)


def attach_meta(ctx: RunContextWrapper[Any], meta: Mapping[str, Any]) -> None:
    """Gives the running call's result presentation meta (call it from a tool that takes the
    ``ToolContext``)."""
    if isinstance(ctx, ToolContext):
        _keep(_metas, ctx.tool_call_id, dict(meta))


def _item_id(item: Any) -> Optional[str]:
    """An output item's id, unless it is the placeholder the Chat Completions model (LiteLLM,
    every non-OpenAI provider) gives every item: then the client draws one."""
    item_id = getattr(item, "id", None)
    return item_id if isinstance(item_id, str) and item_id and item_id != FAKE_RESPONSES_ID else None


class ToolviewRunHooks(RunHooks[Any]):
    """``Runner.run(…, hooks=ToolviewRunHooks(session))``. One turn per run: it starts with the
    first agent (or with ``prompt``) and ends with the final output, with the run's token
    usage."""

    def __init__(self, session: AsyncSession) -> None:
        # The SDK awaits its hooks on its event loop: a sync session's calls return nothing to
        # await (it failed deep inside, "object Turn can't be used in 'await' expression"), so the
        # wrong client is refused here, as the Claude adapter refuses it.
        if not isinstance(session, AsyncSession):
            raise TypeError(
                "ToolviewRunHooks needs an AsyncSession: toolview.aio.AsyncClient(...).session(...), "
                f"not {type(session).__name__}"
            )
        self.session = session
        self._turn: Optional[AsyncTurn] = None
        self._calls: Dict[str, AsyncCall] = {}
        # Agent tools (`agent_tool`): per tool name, its calls no nested run has taken yet.
        self._waiting: Dict[str, List[str]] = {}

    def agent_tool(self, tool_name: str) -> "ToolviewRunHooks":
        """The hooks for ``agent.as_tool(tool_name, …, hooks=…)``: the nested run's calls and
        messages are published under the call of ``tool_name`` it runs for."""
        self._waiting.setdefault(tool_name, [])
        return _NestedRunHooks(self, tool_name)

    def _parent(self, context: Any) -> Optional[str]:
        """The call the calls and messages of ``context``'s run go under (none at the top)."""
        return None

    async def _open_turn(self) -> None:
        if self._turn is None or self._turn.finished:
            self._turn = await self.session.start_turn()

    async def prompt(self, text: str) -> None:
        """Starts the turn with the user's prompt (call before ``Runner.run``)."""
        await self._open_turn()
        await self.session.message("user", text)

    async def on_agent_start(self, context: Any, agent: Any) -> None:
        await self._open_turn()

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        for item in response.output:
            kind = getattr(item, "type", None)
            if kind == "message":
                text = "".join(getattr(part, "text", "") or "" for part in item.content)
                if text:
                    await self.session.message(
                        "assistant", text, message_id=_item_id(item), parent=self._parent(context)
                    )
            elif kind == "reasoning":
                text = "\n".join(s.text for s in (item.summary or []) if getattr(s, "text", None))
                if text:
                    await self.session.message(
                        "reasoning", text, message_id=_item_id(item), parent=self._parent(context)
                    )

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        if self._key(context, tool) in self._calls:
            return  # started when its approval was asked (`decide_interruptions`)
        if isinstance(context, ToolContext):
            call_id, args = context.tool_call_id, context.tool_arguments
        else:
            # Hosted and other non-function tools: no call id or arguments reach the hook.
            call_id, args = None, None
        self._calls[self._key(context, tool)] = await self.session.start_call(
            tool.name, args, call_id=call_id, parent=self._parent(context)
        )
        if tool.name in self._waiting and call_id:
            self._waiting[tool.name].append(call_id)

    async def decide_interruptions(self, result: Any, *, timeout: Optional[float] = None) -> Any:
        """When a run stopped for approvals (tools with ``needs_approval``), asks through
        toolview for each — every UI watching the session shows the prompt on the call's card —
        and returns the run's state with every decision applied, to pass to ``Runner.run`` to go
        on; ``None`` when nothing waits. A rejected call's card ends failed, naming who
        rejected it; the model is told the same."""
        interruptions = list(getattr(result, "interruptions", None) or [])
        if not interruptions:
            return None
        state = result.to_state()
        for item in interruptions:
            raw = item.raw_item
            call_id = getattr(raw, "call_id", None)
            name = item.tool_name or getattr(raw, "name", "tool")
            call = self._calls.get(call_id) if call_id else None
            if call is None:
                # The card first, so the prompt shows on it; the run's `on_tool_start` keeps it.
                call = await self.session.start_call(name, getattr(raw, "arguments", None), call_id=call_id)
                if call_id:
                    self._calls[call_id] = call
            decision = await call.request_permission(
                f"Run {name}?",
                [allow_once(), allow_always(), reject_once(), reject_always()],
                timeout=timeout,
                request_id=f"perm-{call.call_id}",
            )
            if decision.allowed:
                state.approve(item, always_approve=decision.kind == "allow_always")
                continue
            message = denial(decision)
            state.reject(item, always_reject=decision.kind == "reject_always", rejection_message=message)
            if call_id:
                self._calls.pop(call_id, None)
            await call.finish(message, is_error=True)
        return state

    @staticmethod
    def _key(context: Any, tool: Any) -> str:
        # A call without an id is matched to its end by its tool's name.
        return context.tool_call_id if isinstance(context, ToolContext) else f"tool:{tool.name}"

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
        key = self._key(context, tool)
        call = self._calls.pop(key, None)
        error, meta = _failures.pop(key, None), _metas.pop(key, None)
        if call is None:
            return
        text = result if isinstance(result, str) else str(result)
        if error is not None:
            await call.finish(error, is_error=True)
        elif text == default_tool_error_function(context, Exception()):
            # The SDK's answer to a tool that raised (its default failure function).
            await call.finish(text, is_error=True)
        else:
            await call.finish(text, meta=meta)

    async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
        await self._end_turn(context)

    async def _end_turn(self, context: Any) -> None:
        if self._turn is not None and not self._turn.finished:
            usage = getattr(context, "usage", None)
            await self._turn.finish(
                "end_turn",
                Usage(
                    input_tokens=getattr(usage, "input_tokens", 0) or 0,
                    output_tokens=getattr(usage, "output_tokens", 0) or 0,
                )
                if usage is not None
                else None,
            )


class _NestedRunHooks(ToolviewRunHooks):
    """An agent tool's nested runs: part of the outer run's turn, each under the call it runs
    for. One hooks object serves every run of the tool, at once too: a run is told apart by its
    context's ``usage`` (the SDK makes one per run and shares it with the run's tool contexts);
    a run it cannot tell apart is published at the top, never under another's call."""

    def __init__(self, outer: ToolviewRunHooks, tool_name: str) -> None:
        super().__init__(outer.session)
        self._outer, self._tool_name = outer, tool_name
        self._runs: Dict[int, str] = {}

    def _parent(self, context: Any) -> Optional[str]:
        return self._runs.get(id(getattr(context, "usage", None)))

    async def _open_turn(self) -> None:
        pass  # the outer run's turn

    async def on_agent_start(self, context: Any, agent: Any) -> None:
        run = id(getattr(context, "usage", None))
        waiting = self._outer._waiting.get(self._tool_name) or []
        if run not in self._runs and waiting:
            self._runs[run] = waiting.pop(0)

    async def _end_turn(self, context: Any) -> None:
        self._runs.pop(id(getattr(context, "usage", None)), None)
