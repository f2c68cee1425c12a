"""OpenAI Agents SDK run hooks that publish a run as a toolview turn: the model's messages and
reasoning, and each function tool call.

    from agents import Agent, Runner
    from toolview.aio import AsyncClient
    from toolview.adapters.openai_agents import ToolviewRunHooks

    async with AsyncClient("127.0.0.1:50051") as client:
        hooks = ToolviewRunHooks(client.session("my-session"))
        await hooks.prompt("Make the port configurable.")
        result = await Runner.run(agent, "Make the port configurable.", hooks=hooks)

A call's id is the model's ``call_id`` and its arguments are the model's JSON text, so tools
named like toolview's built-in vocabularies (``read``, ``bash``, ``grep``, …, or Claude Code's
``Read``, ``Bash``, …) get their cards; any other tool gets the generic card. The tool's
return value (as the SDK hands it to ``on_tool_end``) is the result text.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from agents import RunHooks
from agents.tool_context import ToolContext

from .._events import Usage
from ..aio import AsyncCall, AsyncSession, AsyncTurn


class ToolviewRunHooks(RunHooks[Any]):
    """``Runner.run(…, hooks=ToolviewRunHooks(session))``. One turn per run: it starts with the
    first agent (or with ``prompt``) and ends with the final output, with the run's token
    usage."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self._turn: Optional[AsyncTurn] = None
        self._calls: Dict[str, AsyncCall] = {}

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
                    await self.session.message("assistant", text, message_id=getattr(item, "id", None))
            elif kind == "reasoning":
                text = "\n".join(s.text for s in (item.summary or []) if getattr(s, "text", None))
                if text:
                    await self.session.message("reasoning", text, message_id=getattr(item, "id", None))

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        if isinstance(context, ToolContext):
            call_id, args = context.tool_call_id, context.tool_arguments
        else:
            # Hosted and other non-function tools: no call id or arguments reach the hook.
            call_id, args = None, None
        self._calls[self._key(context, tool)] = await self.session.start_call(
            tool.name, args, call_id=call_id
        )

    @staticmethod
    def _key(context: Any, tool: Any) -> str:
        # A call without an id is matched to its end by its tool's name.
        return context.tool_call_id if isinstance(context, ToolContext) else f"tool:{tool.name}"

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
        call = self._calls.pop(self._key(context, tool), None)
        if call is not None:
            await call.finish(result if isinstance(result, str) else str(result))

    async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
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
