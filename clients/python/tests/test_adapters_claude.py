"""The Claude Agent SDK adapter, driven by the SDK's own hook dispatch and ``query()`` fed by a
scripted Claude Code (its control protocol over a custom transport): each run's cards are the ones
toolview's presenters give for those tools and results, the conversation between the calls is
published, and ``can_use_tool`` asks through toolview."""

import asyncio
import itertools
import json
import threading
from typing import Any, AsyncIterator, Dict, List

import pytest
from _adapters import assert_presented, conversation, final_cards
from _server import Server

from toolview import Client
from toolview.aio import AsyncClient

claude_agent_sdk = pytest.importorskip("claude_agent_sdk")


READ_RESPONSE = {
    "type": "text",
    "file": {
        "filePath": "/work/app.ts",
        "content": "export const port = 8080\n// TODO\n",
        "numLines": 2,
        "startLine": 1,
        "totalLines": 2,
    },
}
EDIT_RESPONSE = {
    "filePath": "/work/app.ts",
    "oldString": "8080",
    "newString": "Number(process.env.PORT)",
    "structuredPatch": [
        {
            "oldStart": 1,
            "oldLines": 1,
            "newStart": 1,
            "newLines": 1,
            "lines": ["-export const port = 8080", "+export const port = Number(process.env.PORT)"],
        }
    ],
}
# (hook event, tool, tool_use_id, input, response or error)
CLAUDE_CALLS = [
    ("PostToolUse", "Read", "toolu_01", {"file_path": "/work/app.ts"}, READ_RESPONSE),
    (
        "PostToolUse",
        "Edit",
        "toolu_02",
        {"file_path": "/work/app.ts", "old_string": "8080", "new_string": "Number(process.env.PORT)"},
        EDIT_RESPONSE,
    ),
    (
        "PostToolUse",
        "Bash",
        "toolu_03",
        {"command": "npm test", "description": "Run the tests"},
        {"stdout": "> vitest run\nTests 3 passed", "stderr": "", "interrupted": False, "isImage": False},
    ),
    ("PostToolUseFailure", "Bash", "toolu_04", {"command": "npm run lint"}, "Exit code 3\nlint: 2 problems"),
    (
        "PostToolUse",
        "Grep",
        "toolu_05",
        {"pattern": "TODO", "output_mode": "content", "-n": True},
        {"mode": "content", "numFiles": 0, "filenames": [], "content": "app.ts:2:// TODO", "numLines": 1},
    ),
    (
        "PostToolUse",
        "Glob",
        "toolu_06",
        {"pattern": "**/*.ts"},
        {
            "filenames": ["/work/app.ts", "/work/app.test.ts"],
            "durationMs": 3,
            "numFiles": 2,
            "truncated": False,
        },
    ),
    ("PostToolUseFailure", "Read", "toolu_07", {"file_path": "/work/gone.ts"}, "File does not exist."),
]
# What each call's card must show: (result card, its text or (output, exit code)).
CLAUDE_SHOWN = {
    "toolu_04": ("terminal", ("lint: 2 problems", 3)),
    "toolu_05": ("generic", "app.ts:2:// TODO"),
    "toolu_06": ("generic", "/work/app.ts\n/work/app.test.ts"),
}
USAGE = {"input_tokens": 900, "cache_read_input_tokens": 300, "output_tokens": 120}


class ScriptedClaudeCode:
    """A Claude Code stand-in on the SDK's transport interface: it answers the SDK's initialize
    request, and on the prompt sends the hook callbacks a real run sends (through the SDK's own
    control protocol, waiting for each answer), then the result."""

    def __init__(self) -> None:
        self.out: "asyncio.Queue[Any]" = asyncio.Queue()
        self.hooks: Dict[str, List[str]] = {}
        self.answers: Dict[str, "asyncio.Future[Any]"] = {}
        self.ids = itertools.count(1)
        self.run: "asyncio.Task[None] | None" = None

    async def connect(self) -> None:
        pass

    def is_ready(self) -> bool:
        return True

    async def write(self, data: str) -> None:
        message = json.loads(data)
        if message["type"] == "control_request" and message["request"]["subtype"] == "initialize":
            for event, matchers in (message["request"]["hooks"] or {}).items():
                self.hooks[event] = [i for m in matchers for i in m["hookCallbackIds"]]
            await self.out.put(
                {
                    "type": "control_response",
                    "response": {"subtype": "success", "request_id": message["request_id"], "response": {}},
                }
            )
        elif message["type"] == "control_response":
            self.answers.pop(message["response"]["request_id"]).set_result(message["response"])
        elif message["type"] == "user":
            self.run = asyncio.create_task(self.turn(message["message"]["content"]))

    async def hook(self, event: str, data: Dict[str, Any], tool_use_id: Any = None) -> None:
        for callback_id in self.hooks[event]:
            request_id = f"req_{next(self.ids)}"
            self.answers[request_id] = asyncio.get_running_loop().create_future()
            await self.out.put(
                {
                    "type": "control_request",
                    "request_id": request_id,
                    "request": {
                        "subtype": "hook_callback",
                        "callback_id": callback_id,
                        "tool_use_id": tool_use_id,
                        "input": {
                            "session_id": "cc-1",
                            "transcript_path": "",
                            "cwd": "/work",
                            "hook_event_name": event,
                            **data,
                        },
                    },
                }
            )
            answer = await self.answers[request_id]
            assert answer["subtype"] == "success" and answer["response"] == {}, answer

    async def say(self, text: str, n: int) -> None:
        await self.out.put(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{n}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-test",
                    "content": [{"type": "text", "text": text}],
                },
                "parent_tool_use_id": None,
                "session_id": "cc-1",
                "uuid": f"uuid-{n}",
            }
        )

    async def result(self) -> None:
        """The run's result, as Claude Code ends a query."""
        await self.out.put(
            {
                "type": "result",
                "subtype": "success",
                "duration_ms": 5,
                "duration_api_ms": 4,
                "is_error": False,
                "num_turns": 1,
                "session_id": "cc-1",
                "result": "done",
                "usage": USAGE,
            }
        )

    async def turn(self, prompt: str) -> None:
        await self.hook("UserPromptSubmit", {"prompt": prompt})
        await self.say("I'll look at the app first.", 1)
        for event, tool, tool_use_id, args, outcome in CLAUDE_CALLS:
            common = {"tool_name": tool, "tool_input": args, "tool_use_id": tool_use_id}
            await self.hook("PreToolUse", common, tool_use_id)
            after = {"tool_response": outcome} if event == "PostToolUse" else {"error": outcome}
            await self.hook(event, {**common, **after}, tool_use_id)
        await self.say("The port is configurable.", 2)
        await self.hook(
            "Stop", {"stop_hook_active": False, "last_assistant_message": "The port is configurable."}
        )
        await self.result()

    async def read_messages(self) -> AsyncIterator[Dict[str, Any]]:
        while (message := await self.out.get()) is not None:
            yield message

    async def end_input(self) -> None:
        await self.out.put(None)

    async def close(self) -> None:
        pass


@pytest.mark.parametrize("watch", [True, False], ids=["watching the messages", "hooks only"])
def test_claude_agent_sdk_hooks_publish_the_calls_as_toolview_presents_them(
    server: Server, watch: bool
) -> None:
    from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

    from toolview.adapters.claude_agent_sdk import ToolviewHooks, result_of

    async def run() -> List[Any]:
        async with AsyncClient(server.address) as client:
            hooks = ToolviewHooks(client.session("claude"))
            options = ClaudeAgentOptions(hooks=hooks.matchers())
            prompt = "Make the port configurable."
            messages = query(prompt=prompt, options=options, transport=ScriptedClaudeCode())
            return [m async for m in (hooks.watch(messages) if watch else messages)]

    messages = asyncio.run(run())
    assert isinstance(messages[-1], ResultMessage)
    calls = len(CLAUDE_CALLS)
    # A turn: its start, the prompt (start, end), the calls (start, end), the answers, its end.
    answers = 2 if watch else 1
    events = 1 + 2 + 2 * calls + 2 * answers + 1
    cards = final_cards(server, "claude", events)
    assert list(cards) == [c[2] for c in CLAUDE_CALLS]
    for event, tool, tool_use_id, args, outcome in CLAUDE_CALLS:
        card = cards[tool_use_id]
        shown = CLAUDE_SHOWN.get(tool_use_id)
        if shown and shown[0] == "terminal":
            output, exit_code = shown[1]
            assert card.result.terminal.output == output and card.result.terminal.exit_code == exit_code
        elif shown:
            assert card.result.generic.content[0].text.text == shown[1], tool
        if event == "PostToolUse":
            text, meta = result_of(tool, outcome)
            assert_presented(server, card, tool, args, text, meta=meta)
        elif tool != "Bash":
            assert_presented(server, card, tool, args, outcome, is_error=True)
            assert card.status == 3  # failed
    assert cards["toolu_01"].result.WhichOneof("card") == "read"
    assert cards["toolu_02"].result.WhichOneof("card") == "diff"
    assert cards["toolu_03"].result.WhichOneof("card") == "terminal"
    assert cards["toolu_04"].result.WhichOneof("card") == "terminal"
    said = conversation(server, "claude", events)
    user = ("message", 1, "Make the port configurable.")
    if watch:
        # The text between the calls and the answer, then the turn's end with the run's usage.
        assert said == [
            user,
            ("message", 2, "I'll look at the app first."),
            ("message", 2, "The port is configurable."),
            ("turn", 1200, 120),
        ]
    else:
        assert said == [user, ("message", 2, "The port is configurable."), ("turn", 0, 0)]
    with Client(server.address) as client:
        assert client.get_session("claude").title == "Make the port configurable."


def test_claude_hooks_refuse_a_sync_session(server: Server) -> None:
    from toolview.adapters.claude_agent_sdk import ToolviewHooks

    with Client(server.address) as client, pytest.raises(TypeError, match="AsyncSession"):
        ToolviewHooks(client.session("sync"))  # type: ignore[arg-type]


class AskingClaudeCode(ScriptedClaudeCode):
    """A Claude Code stand-in that asks ``can_use_tool`` before a Bash call, as Claude Code does
    for a command its settings do not allow, and runs or skips the call on the answer."""

    def __init__(self) -> None:
        super().__init__()
        self.permission: Dict[str, Any] = {}

    async def ask(self, tool_use_id: str, tool: str, args: Dict[str, Any]) -> Dict[str, Any]:
        request_id = f"req_{next(self.ids)}"
        self.answers[request_id] = asyncio.get_running_loop().create_future()
        rule = {"toolName": tool, "ruleContent": args["command"]}
        await self.out.put(
            {
                "type": "control_request",
                "request_id": request_id,
                "request": {
                    "subtype": "can_use_tool",
                    "tool_name": tool,
                    "input": args,
                    "permission_suggestions": [
                        {"type": "addRules", "rules": [rule], "behavior": "allow", "destination": "session"}
                    ],
                    "tool_use_id": tool_use_id,
                    "title": f"Allow {tool} to run {args['command']}?",
                },
            }
        )
        answer = await self.answers[request_id]
        assert answer["subtype"] == "success", answer
        return dict(answer["response"])

    async def turn(self, prompt: str) -> None:
        await self.hook("UserPromptSubmit", {"prompt": prompt})
        args = {"command": "rm -rf build", "description": "Clean"}
        common = {"tool_name": "Bash", "tool_input": args, "tool_use_id": "toolu_09"}
        await self.hook("PreToolUse", common, "toolu_09")
        self.permission = await self.ask("toolu_09", "Bash", args)
        if self.permission["behavior"] == "allow":
            response = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False}
            await self.hook("PostToolUse", {**common, "tool_response": response}, "toolu_09")
        else:
            await self.hook("PostToolUseFailure", {**common, "error": self.permission["message"]}, "toolu_09")
        await self.hook("Stop", {"stop_hook_active": False, "last_assistant_message": "Done."})
        await self.out.put(
            {
                "type": "result",
                "subtype": "success",
                "duration_ms": 5,
                "duration_api_ms": 4,
                "is_error": False,
                "num_turns": 1,
                "session_id": "cc-1",
                "result": "done",
            }
        )


@pytest.mark.parametrize("answer", ["reject", "always"])
def test_claude_can_use_tool_asks_through_toolview(server: Server, answer: str) -> None:
    """Claude Code asks; the prompt shows on the call's card; a UI answers through toolview; the
    SDK gets the decision (a deny naming who rejected, or an allow with the suggested rule)."""
    from claude_agent_sdk import ClaudeAgentOptions, query

    from toolview.adapters.claude_agent_sdk import ToolviewHooks

    session_id = f"ask-{answer}"
    claude = AskingClaudeCode()

    def ui() -> None:
        with Client(server.address) as client, client.subscribe(session_id, "view") as updates:
            for update in updates:
                if update.view.WhichOneof("update") == "permission":
                    assert update.view.permission.request.call_id == "toolu_09"
                    client.respond_permission(
                        session_id, update.request_id, answer, reason="checked", via="test"
                    )
                    return

    async def run() -> None:
        async def prompt() -> AsyncIterator[Dict[str, Any]]:
            yield {"type": "user", "message": {"role": "user", "content": "Clean the build."}}

        async with AsyncClient(server.address) as client:
            hooks = ToolviewHooks(client.session(session_id))
            options = ClaudeAgentOptions(hooks=hooks.matchers(), can_use_tool=hooks.can_use_tool)
            async for _ in query(prompt=prompt(), options=options, transport=claude):
                pass

    answering = threading.Thread(target=ui)
    answering.start()
    asyncio.run(run())
    answering.join(timeout=30)
    if answer == "reject":
        assert claude.permission == {"behavior": "deny", "message": "Rejected by someone via test: checked"}
    else:
        assert claude.permission["behavior"] == "allow"
        assert claude.permission["updatedInput"] == {"command": "rm -rf build", "description": "Clean"}
        assert claude.permission["updatedPermissions"][0]["rules"] == [
            {"toolName": "Bash", "ruleContent": "rm -rf build"}
        ]


class SubagentClaudeCode(ScriptedClaudeCode):
    """A run whose ``Task`` call runs a subagent: ``SubagentStart``, the subagent's message
    (``parent_tool_use_id``: the Task call) announcing its first call, that call's hooks with
    the subagent's ``agent_id``, a second call the messages never announce (hooks only), then the
    Task's result."""

    async def turn(self, prompt: str) -> None:
        await self.hook("UserPromptSubmit", {"prompt": prompt})
        task = {
            "tool_name": "Task",
            "tool_input": {
                "description": "Find the flaky test",
                "prompt": "Look.",
                "subagent_type": "explore",
            },
            "tool_use_id": "toolu_task",
        }
        await self.hook("PreToolUse", task, "toolu_task")
        await self.hook("SubagentStart", {"agent_id": "agent-1", "agent_type": "explore"})
        await self.out.put(
            {
                "type": "assistant",
                "message": {
                    "id": "msg_sub",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-test",
                    "content": [
                        {"type": "text", "text": "Searching the tests."},
                        {"type": "tool_use", "id": "toolu_s1", "name": "Grep", "input": {"pattern": "flaky"}},
                    ],
                },
                "parent_tool_use_id": "toolu_task",
                "session_id": "cc-1",
                "uuid": "uuid-sub",
            }
        )
        inside = {"agent_id": "agent-1", "agent_type": "explore"}
        grep = {"tool_name": "Grep", "tool_input": {"pattern": "flaky"}, "tool_use_id": "toolu_s1", **inside}
        await self.hook("PreToolUse", grep, "toolu_s1")
        await self.hook("PostToolUse", {**grep, "tool_response": {"filenames": ["tests/net.rs"]}}, "toolu_s1")
        bash = {
            "tool_name": "Bash",
            "tool_input": {"command": "cargo test net"},
            "tool_use_id": "toolu_s2",
            **inside,
        }
        await self.hook("PreToolUse", bash, "toolu_s2")
        await self.hook("PostToolUseFailure", {**bash, "error": "Exit code 101\nFAILED"}, "toolu_s2")
        await self.hook("SubagentStop", {"stop_hook_active": False, "agent_transcript_path": "", **inside})
        await self.hook("PostToolUse", {**task, "tool_response": "net::reconnect is flaky"}, "toolu_task")
        await self.result()


def test_claude_subagents_calls_nest_under_their_task_call(server: Server) -> None:
    from claude_agent_sdk import ClaudeAgentOptions, query

    from toolview.adapters.claude_agent_sdk import ToolviewHooks

    async def run() -> None:
        async with AsyncClient(server.address) as client:
            hooks = ToolviewHooks(client.session("claude-sub"))
            options = ClaudeAgentOptions(hooks=hooks.matchers())
            messages = query(prompt="Find the flaky test.", options=options, transport=SubagentClaudeCode())
            async for _ in hooks.watch(messages):
                pass

    asyncio.run(run())
    # A turn: its start, the prompt, the Task call and its two children (start, end each), the
    # subagent's words, the turn's end.
    events = 1 + 2 + 2 * 3 + 2 + 1
    cards = final_cards(server, "claude-sub", events)
    assert list(cards) == ["toolu_task", "toolu_s1", "toolu_s2"]
    # The first child is named by the subagent's message, the second by its agent's hooks.
    assert [cards[c].parent_call_id for c in ("toolu_task", "toolu_s1", "toolu_s2")] == [
        "",
        "toolu_task",
        "toolu_task",
    ]
    progress = cards["toolu_task"].children
    assert (progress.running, progress.done) == (0, 2)  # the failed command is a terminal card
    with Client(server.address) as client, client.subscribe("claude-sub", "view") as updates:
        views = [u.view for u in itertools.islice(updates, events)]
    words = [v.message for v in views if v.WhichOneof("update") == "message" and v.message.role == 2]
    assert [(m.text, m.parent_call_id) for m in words][-1] == ("Searching the tests.", "toolu_task")
