"""Claude Agent SDK hooks that publish a session's turns, prompts, tool calls and answers.

    from claude_agent_sdk import ClaudeAgentOptions, query
    from toolview.aio import AsyncClient
    from toolview.adapters.claude_agent_sdk import ToolviewHooks

    async with AsyncClient("127.0.0.1:50051") as client:
        hooks = ToolviewHooks(client.session("my-session"))
        async for message in query(prompt="…", options=ClaudeAgentOptions(hooks=hooks.matchers())):
            ...

Claude Code's tool names are toolview's second built-in vocabulary (``Bash``, ``Read``,
``Edit``, …), so the calls get the same cards as the ACP adapter for Claude Code shows. Each
tool's response is turned into the result the model saw (Read's numbered lines, Bash's output)
and the presentation meta toolview reads (Edit's and Write's ``structuredPatch``). The hooks
never block or alter the agent: each returns ``{}``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ..aio import AsyncCall, AsyncSession, AsyncTurn

_EXIT = re.compile(r"^Exit code (\d+)")


def result_of(tool_name: str, response: Any) -> Tuple[str, Optional[Dict[str, Any]]]:
    """The result text and presentation meta for a Claude Code tool response."""
    if isinstance(response, str):
        return response, None
    if not isinstance(response, Mapping):
        return json.dumps(response, ensure_ascii=False, default=str), None
    if tool_name == "Read" and isinstance(response.get("file"), Mapping):
        file = response["file"]
        first = file.get("startLine") if isinstance(file.get("startLine"), int) else 1
        lines = str(file.get("content", "")).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        # The numbered form Claude Code gives the model, which toolview's Read presenter reads.
        return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(lines, first)), None
    if tool_name == "Bash" and "stdout" in response:
        parts = [str(response.get("stdout") or ""), str(response.get("stderr") or "")]
        return "\n".join(p for p in parts if p), None
    if tool_name in ("Edit", "MultiEdit", "Write") and isinstance(response.get("structuredPatch"), list):
        path = response.get("filePath")
        meta: Dict[str, Any] = {"structuredPatch": response["structuredPatch"]}
        if isinstance(path, str):
            meta["filePath"] = path
        verb = "created" if response.get("type") == "create" else "updated"
        return f"The file {path} has been {verb}.", meta
    content = response.get("content")
    if isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, Mapping) and b.get("type") == "text"]
        if texts:
            return "\n".join(texts), None
    return json.dumps(response, ensure_ascii=False, default=str), None


class ToolviewHooks:
    """Hook callbacks for ``ClaudeAgentOptions(hooks=…)``: ``UserPromptSubmit`` starts a turn
    with the user's message, ``PreToolUse`` starts a call (its id is the ``tool_use_id``),
    ``PostToolUse`` / ``PostToolUseFailure`` finish it, ``Stop`` adds the last answer and ends
    the turn."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self._calls: Dict[str, AsyncCall] = {}
        self._turn: Optional[AsyncTurn] = None

    def matchers(self) -> Dict[str, List[Any]]:
        """The ``hooks`` option: every tool, every event the adapter uses."""
        from claude_agent_sdk import HookMatcher

        return {
            "UserPromptSubmit": [HookMatcher(hooks=[self.user_prompt_submit])],
            "PreToolUse": [HookMatcher(hooks=[self.pre_tool_use])],
            "PostToolUse": [HookMatcher(hooks=[self.post_tool_use])],
            "PostToolUseFailure": [HookMatcher(hooks=[self.post_tool_use_failure])],
            "Stop": [HookMatcher(hooks=[self.stop])],
        }

    async def user_prompt_submit(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        if self._turn is not None and not self._turn.finished:
            await self._turn.finish("end_turn")
        self._turn = await self.session.start_turn()
        await self.session.message("user", str(data.get("prompt", "")))
        return {}

    async def pre_tool_use(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        call_id = str(data.get("tool_use_id") or tool_use_id or "")
        call = await self.session.start_call(
            str(data.get("tool_name", "")), data.get("tool_input") or {}, call_id=call_id or None
        )
        self._calls[call_id] = call
        return {}

    async def post_tool_use(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        call = self._calls.pop(str(data.get("tool_use_id") or tool_use_id or ""), None)
        if call is not None:
            text, meta = result_of(str(data.get("tool_name", "")), data.get("tool_response"))
            await call.finish(text, meta=meta)
        return {}

    async def post_tool_use_failure(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        call = self._calls.pop(str(data.get("tool_use_id") or tool_use_id or ""), None)
        if call is not None:
            error = str(data.get("error", ""))
            exit_code = _EXIT.match(error)
            meta = {"exit_code": int(exit_code.group(1))} if exit_code else None
            await call.finish(error, is_error=True, meta=meta)
        return {}

    async def stop(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        answer = data.get("last_assistant_message")
        if isinstance(answer, str) and answer:
            await self.session.message("assistant", answer)
        if self._turn is not None and not self._turn.finished:
            await self._turn.finish("end_turn")
        return {}
