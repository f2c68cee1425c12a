"""Claude Agent SDK hooks that publish a session's turns, prompts, tool calls and answers.

    from claude_agent_sdk import ClaudeAgentOptions, query
    from toolview.aio import AsyncClient
    from toolview.adapters.claude_agent_sdk import ToolviewHooks

    async with AsyncClient("127.0.0.1:50051") as client:
        hooks = ToolviewHooks(client.session("my-session"))
        options = ClaudeAgentOptions(hooks=hooks.matchers())
        async for message in hooks.watch(query(prompt="…", options=options)):
            ...

Claude Code's tool names are toolview's second built-in vocabulary (``Bash``, ``Read``,
``Edit``, …), so the calls get the same cards as the ACP adapter for Claude Code shows. Each
tool's response is turned into the result the model saw (Read's numbered lines, Bash's output,
Grep's and Glob's matches) and the presentation meta toolview reads (Edit's and Write's
``structuredPatch``, a command's ``exit_code``). A command that ran and exited non-zero is a
terminal card with its exit code, not an error. The hooks never block or alter the agent: each
returns ``{}``.

``can_use_tool`` (``ClaudeAgentOptions(can_use_tool=hooks.can_use_tool)``, optional) asks for
permission through toolview: every UI watching the session shows the prompt on the call's card,
the first authorized answer decides (docs/approvals.md).

The hooks see no text from the model: ``watch`` (optional) passes ``query``'s messages through
and publishes the assistant's text and thinking as they come, then ends the turn with the
run's usage when its result arrives (without it, ``Stop`` ends the turn with the last answer).

Subagents: the calls a ``Task`` (``Agent``) subagent makes are published as children of the
``Task`` call (docs/call-shapes.md#nesting). A tool hook from inside a subagent names its
``agent_id``; ``SubagentStart`` binds that agent to the oldest ``Task`` call not yet bound.
With ``watch``, the subagent's own messages (``parent_tool_use_id``) name the ``Task`` call
exactly, and its words are published under it too.
"""

from __future__ import annotations

import json
import re
from typing import Any, AsyncIterable, AsyncIterator, Dict, List, Mapping, Optional, Tuple

from .._events import Usage
from .._permissions import allow_always, allow_once, denial, reject_once
from ..aio import AsyncCall, AsyncSession, AsyncTurn

_EXIT = re.compile(r"^Exit code (-?\d+)\n?")
#: The tools whose call runs a subagent.
SUBAGENT_TOOLS = ("Task", "Agent")


def _search_text(tool_name: str, response: Mapping[str, Any]) -> Optional[str]:
    """Grep's and Glob's matches as Claude Code gives them to the model."""
    names = response.get("filenames")
    files = [str(f) for f in names] if isinstance(names, list) else []
    if tool_name == "Grep" and isinstance(response.get("content"), str) and response["content"]:
        return str(response["content"])
    if tool_name in ("Grep", "Glob") and ("filenames" in response or "numFiles" in response):
        if files:
            return "\n".join(files)
        return "No files found" if tool_name == "Glob" else "No matches found"
    return None


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
    search = _search_text(tool_name, response)
    if search is not None:
        return search, None
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
    the turn (unless ``watch`` ends it, with usage)."""

    def __init__(self, session: AsyncSession, *, permission_timeout: Optional[float] = None) -> None:
        # The SDK awaits its hooks on its event loop: a sync session's calls would block it (and
        # return no awaitable), so the wrong client is refused here, not inside every hook.
        if not isinstance(session, AsyncSession):
            raise TypeError(
                "ToolviewHooks needs an AsyncSession: toolview.aio.AsyncClient(...).session(...), "
                f"not {type(session).__name__}"
            )
        self.session = session
        self._calls: Dict[str, AsyncCall] = {}
        # Subagents: agent id -> its Task call; Task calls not yet bound to an agent, oldest
        # first; a tool_use_id -> the Task call it runs under, from the subagent's messages.
        self._agents: Dict[str, str] = {}
        self._unbound: List[str] = []
        self._parents: Dict[str, str] = {}
        self._turn: Optional[AsyncTurn] = None
        self._watched = False
        #: Seconds people have to answer a permission request (the server's default when None).
        self.permission_timeout = permission_timeout

    def matchers(self) -> Dict[str, List[Any]]:
        """The ``hooks`` option: every tool, every event the adapter uses."""
        from claude_agent_sdk import HookMatcher

        return {
            "UserPromptSubmit": [HookMatcher(hooks=[self.user_prompt_submit])],
            "PreToolUse": [HookMatcher(hooks=[self.pre_tool_use])],
            "PostToolUse": [HookMatcher(hooks=[self.post_tool_use])],
            "PostToolUseFailure": [HookMatcher(hooks=[self.post_tool_use_failure])],
            "Stop": [HookMatcher(hooks=[self.stop])],
            "SubagentStart": [HookMatcher(hooks=[self.subagent_start])],
            "SubagentStop": [HookMatcher(hooks=[self.subagent_stop])],
        }

    async def watch(self, messages: AsyncIterable[Any]) -> AsyncIterator[Any]:
        """``query()``'s messages, passed through: the assistant's text and thinking are
        published as messages, and the run's result ends the turn with its usage."""
        self._watched = True
        async for message in messages:
            await self.observe(message)
            yield message

    async def observe(self, message: Any) -> None:
        """Publishes what one of ``query()``'s messages says (for a loop of your own)."""
        from claude_agent_sdk import AssistantMessage, ResultMessage, TextBlock, ThinkingBlock, ToolUseBlock

        self._watched = True
        if isinstance(message, AssistantMessage):
            # A subagent's message names the Task call it runs under.
            parent = message.parent_tool_use_id
            base = message.uuid or message.message_id
            for i, block in enumerate(message.content):
                message_id = f"{base}:{i}" if base else None
                if isinstance(block, TextBlock) and block.text:
                    await self.session.message("assistant", block.text, message_id=message_id, parent=parent)
                elif isinstance(block, ThinkingBlock) and block.thinking:
                    await self.session.message(
                        "reasoning", block.thinking, message_id=message_id, parent=parent
                    )
                elif isinstance(block, ToolUseBlock) and parent is not None:
                    self._parents[block.id] = parent
        elif isinstance(message, ResultMessage) and self._turn is not None and not self._turn.finished:
            await self._turn.finish(_stop_reason(message), _usage(message.usage))

    async def can_use_tool(self, tool_name: str, input_data: Dict[str, Any], context: Any) -> Any:
        """``ClaudeAgentOptions(can_use_tool=hooks.can_use_tool)``: asks through toolview, so
        every UI watching the session shows the prompt and any with the ``approve`` right may
        answer it; the decision goes back to Claude Code. Allow runs the tool with its input
        (always-allow with Claude Code's suggested permission updates); a reject, the expiry or a
        withdrawal denies it, naming who decided."""
        from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

        tool_use_id = getattr(context, "tool_use_id", None)
        suggestions = list(getattr(context, "suggestions", None) or [])
        options = [allow_once(), *([allow_always()] if suggestions else []), reject_once()]
        call = self._calls.get(str(tool_use_id or ""))
        description = getattr(context, "description", None) or getattr(context, "decision_reason", None)
        decision = await self.session.request_permission(
            str(getattr(context, "title", None) or prompt_for(tool_name, input_data)),
            options,
            call_id=call.call_id if call is not None else None,
            description=str(description or ""),
            timeout=self.permission_timeout,
            request_id=f"perm-{tool_use_id}" if tool_use_id else None,
        )
        if decision.allowed:
            always = decision.kind == "allow_always"
            return PermissionResultAllow(
                updated_input=input_data, updated_permissions=suggestions if always else None
            )
        return PermissionResultDeny(message=denial(decision))

    async def user_prompt_submit(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        if self._turn is not None and not self._turn.finished:
            await self._turn.finish("end_turn")
        self._turn = await self.session.start_turn()
        await self.session.message("user", str(data.get("prompt", "")))
        return {}

    async def pre_tool_use(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        call_id = str(data.get("tool_use_id") or tool_use_id or "")
        tool = str(data.get("tool_name", ""))
        parent = self._parents.pop(call_id, None) or self._agents.get(str(data.get("agent_id") or ""))
        call = await self.session.start_call(
            tool, data.get("tool_input") or {}, call_id=call_id or None, parent=parent
        )
        self._calls[call_id] = call
        if tool in SUBAGENT_TOOLS and call_id:
            self._unbound.append(call_id)
        return {}

    async def subagent_start(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        """A subagent began: its tool hooks (``agent_id``) belong under the oldest Task call
        not yet bound to one."""
        agent_id = str(data.get("agent_id") or "")
        if agent_id and self._unbound:
            self._agents[agent_id] = self._unbound.pop(0)
        return {}

    async def subagent_stop(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        self._agents.pop(str(data.get("agent_id") or ""), None)
        return {}

    async def post_tool_use(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        call_id = str(data.get("tool_use_id") or tool_use_id or "")
        call = self._calls.pop(call_id, None)
        if call_id in self._unbound:
            self._unbound.remove(call_id)
        if call is not None:
            text, meta = result_of(str(data.get("tool_name", "")), data.get("tool_response"))
            await call.finish(text, meta=meta)
        return {}

    async def post_tool_use_failure(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        call_id = str(data.get("tool_use_id") or tool_use_id or "")
        call = self._calls.pop(call_id, None)
        if call_id in self._unbound:
            self._unbound.remove(call_id)
        if call is not None:
            error = str(data.get("error", ""))
            exit_code = _EXIT.match(error)
            if exit_code and data.get("tool_name") == "Bash":
                # The command ran and failed: its output, with its exit code (a terminal card).
                output = error[exit_code.end() :]
                await call.finish(output, meta={"exit_code": int(exit_code.group(1))})
            else:
                await call.finish(error, is_error=True)
        return {}

    async def stop(self, data: Any, tool_use_id: Optional[str], context: Any) -> Any:
        if self._watched:
            return {}  # the text came with the messages, and the result ends the turn
        answer = data.get("last_assistant_message")
        if isinstance(answer, str) and answer:
            await self.session.message("assistant", answer)
        if self._turn is not None and not self._turn.finished:
            await self._turn.finish("end_turn")
        return {}


def _usage(usage: Any) -> Optional[Usage]:
    """The result's token counts (the Messages API's names)."""
    if not isinstance(usage, Mapping):
        return None

    def count(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and value >= 0 else 0

    return Usage(
        input_tokens=count("input_tokens")
        + count("cache_read_input_tokens")
        + count("cache_creation_input_tokens"),
        output_tokens=count("output_tokens"),
        cached_input_tokens=count("cache_read_input_tokens"),
    )


def _stop_reason(result: Any) -> str:
    """How the run ended, in toolview's (ACP's) stop reasons."""
    if result.subtype == "error_max_turns":
        return "max_turn_requests"
    if result.stop_reason == "max_tokens":
        return "max_tokens"
    if result.stop_reason == "refusal":
        return "refusal"
    return "end_turn"


def prompt_for(tool_name: str, args: Mapping[str, Any]) -> str:
    """A prompt for a tool call when Claude Code gives none: ``Run npm test?``."""
    if tool_name == "Bash" and isinstance(args.get("command"), str):
        return f"Run {args['command']}?"
    if tool_name in ("Edit", "MultiEdit", "Write") and isinstance(args.get("file_path"), str):
        return f"{'Write' if tool_name == 'Write' else 'Edit'} {args['file_path']}?"
    return f"Use {tool_name}?"
