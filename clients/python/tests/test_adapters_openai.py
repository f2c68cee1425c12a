"""The OpenAI Agents SDK adapter, driven offline: a run whose model is scripted to call function
tools, a Chat Completions model against a local endpoint, and an approval asked through
toolview. Each run's cards are the ones toolview's presenters give for those tools and results."""

import asyncio
import itertools
import json
import threading
from typing import Any, List

import pytest
from _adapters import FakeChatCompletions, assert_presented, conversation, final_cards
from _server import Server

from toolview import Client
from toolview.aio import AsyncClient

agents = pytest.importorskip("agents")


OPENAI_CALLS = [
    ("call_read_1", "read", {"file_path": "/work/app.ts"}),
    ("call_bash_1", "bash", {"command": "npm test", "description": "Run the tests"}),
    # Meta attached from inside the tool: a search card.
    ("call_grep_1", "grep", {"pattern": "TODO"}),
    # Tools that raise: with the SDK's default failure function, and with ``tool_failure``.
    ("call_fetch_1", "web_fetch", {"url": "https://example.com"}),
    ("call_kill_1", "job_kill", {"job_id": "bash-9"}),
]
GREP_META = {
    "shape": "matches",
    "files": [{"path": "src/app.ts", "matches": [{"lineNumber": 2, "line": "// TODO"}]}],
    "truncated": False,
    "total": 1,
}


class ScriptedModel(agents.Model):
    """A model that asks for both tools at once, then answers; no network."""

    def __init__(self) -> None:
        self.calls = 0

    async def get_response(
        self,
        system_instructions,
        input,
        model_settings,
        tools,
        output_schema,
        handoffs,
        tracing,
        *,
        previous_response_id,
        conversation_id,
        prompt,
    ):  # type: ignore[no-untyped-def]
        from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

        self.calls += 1
        if self.calls == 1:
            output = [
                ResponseFunctionToolCall(
                    type="function_call",
                    id=f"fc_{i}",
                    call_id=call_id,
                    name=name,
                    arguments=json.dumps(args),
                    status="completed",
                )
                for i, (call_id, name, args) in enumerate(OPENAI_CALLS)
            ]
        else:
            output = [
                ResponseOutputMessage(
                    type="message",
                    id="msg_1",
                    role="assistant",
                    status="completed",
                    content=[
                        ResponseOutputText(
                            type="output_text", text="The port is read from PORT.", annotations=[]
                        )
                    ],
                )
            ]
        usage = agents.Usage(requests=1, input_tokens=100, output_tokens=10, total_tokens=110)
        return agents.ModelResponse(output=output, usage=usage, response_id=None)

    def stream_response(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise NotImplementedError("the test runs without streaming")


READ_RESULT = (
    "<path>/work/app.ts</path>\n<type>file</type>\n<content>\n1: export const port = 8080\n</content>"
)
BASH_RESULT = "> vitest run\nTests 3 passed"


@agents.function_tool(name_override="read")
def read_tool(file_path: str) -> str:
    """Reads a file."""
    return READ_RESULT


@agents.function_tool(name_override="bash")
def bash_tool(command: str, description: str) -> str:
    """Runs a command."""
    return BASH_RESULT


@agents.function_tool(name_override="grep")
def grep_tool(ctx: agents.RunContextWrapper[Any], pattern: str) -> str:
    """Searches files."""
    from toolview.adapters.openai_agents import attach_meta

    attach_meta(ctx, GREP_META)
    return "src/app.ts:2: // TODO"


@agents.function_tool(name_override="web_fetch")
def fetch_tool(url: str) -> str:
    """Fetches a page."""
    raise ConnectionError("no network here")


def _kill_tool() -> Any:
    from toolview.adapters.openai_agents import tool_failure

    @agents.function_tool(name_override="job_kill", failure_error_function=tool_failure)
    def kill_tool(job_id: str) -> str:
        """Kills a job."""
        raise RuntimeError(f"no such job: {job_id}")

    return kill_tool


def test_an_openai_agents_run_publishes_the_calls_as_toolview_presents_them(server: Server) -> None:
    from toolview.adapters.openai_agents import ToolviewRunHooks

    async def run() -> Any:
        tools = [read_tool, bash_tool, grep_tool, fetch_tool, _kill_tool()]
        agent = agents.Agent(name="coder", instructions="Code.", model=ScriptedModel(), tools=tools)
        async with AsyncClient(server.address) as client:
            hooks = ToolviewRunHooks(client.session("openai"))
            await hooks.prompt("Where does the port come from?")
            return await agents.Runner.run(agent, "Where does the port come from?", hooks=hooks)

    agents.set_tracing_disabled(True)
    result = asyncio.run(run())
    assert result.final_output == "The port is read from PORT."
    # The turn, the prompt (2), the calls (2 each), the answer (2), the turn's end.
    cards = final_cards(server, "openai", 1 + 2 + 2 * len(OPENAI_CALLS) + 2 + 1)
    assert list(cards) == [call_id for call_id, _, _ in OPENAI_CALLS]
    for (call_id, tool, args), text in zip(OPENAI_CALLS, [READ_RESULT, BASH_RESULT]):
        assert_presented(server, cards[call_id], tool, args, text)
    assert cards["call_bash_1"].call.WhichOneof("card") == "terminal"
    grep = cards["call_grep_1"]
    assert_presented(server, grep, "grep", {"pattern": "TODO"}, "src/app.ts:2: // TODO", meta=GREP_META)
    assert grep.result.WhichOneof("card") == "search"
    # A tool that raised is a failed card: the SDK's message, or the error with tool_failure.
    fetch, kill = cards["call_fetch_1"], cards["call_kill_1"]
    assert (fetch.status, kill.status) == (3, 3)
    default = agents.default_tool_error_function(None, Exception())  # type: ignore[arg-type]
    assert fetch.result.generic.content[0].text.text == default
    assert kill.result.generic.content[0].text.text == "RuntimeError: no such job: bash-9"
    with Client(server.address) as client:
        assert client.get_session("openai").title == "Where does the port come from?"


def test_a_chat_completions_model_has_every_message_published(server: Server) -> None:
    from openai import AsyncOpenAI

    from toolview.adapters.openai_agents import ToolviewRunHooks

    endpoint = FakeChatCompletions()
    model = agents.OpenAIChatCompletionsModel(
        model="gpt-test", openai_client=AsyncOpenAI(base_url=endpoint.url, api_key="test")
    )

    async def run() -> Any:
        agent = agents.Agent(name="coder", instructions="Code.", model=model, tools=[read_tool])
        async with AsyncClient(server.address) as client:
            hooks = ToolviewRunHooks(client.session("chat"))
            await hooks.prompt("Where does the port come from?")
            return await agents.Runner.run(agent, "Where does the port come from?", hooks=hooks)

    agents.set_tracing_disabled(True)
    try:
        result = asyncio.run(run())
    finally:
        endpoint.http.shutdown()
    assert result.final_output == "The port is read from PORT."
    # The turn, the prompt (2), the first message (2), the call (2), the answer (2), the end.
    said = conversation(server, "chat", 1 + 2 + 2 + 2 + 2 + 1)
    assert said == [
        ("message", 1, "Where does the port come from?"),
        ("message", 2, "Let me read the file."),
        ("message", 2, "The port is read from PORT."),
        ("turn", 20, 10),
    ]


class ApprovalModel(agents.Model):
    """A model that asks for one guarded command, then answers; no network."""

    def __init__(self) -> None:
        self.calls = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

        self.calls += 1
        if self.calls == 1:
            output: List[Any] = [
                ResponseFunctionToolCall(
                    type="function_call",
                    id="fc_9",
                    call_id="call_bash_9",
                    name="bash",
                    arguments=json.dumps({"command": "rm -rf build", "description": "Clean"}),
                    status="completed",
                )
            ]
        else:
            text = ResponseOutputText(type="output_text", text="Done.", annotations=[])
            output = [
                ResponseOutputMessage(
                    type="message", id="msg_9", role="assistant", status="completed", content=[text]
                )
            ]
        usage = agents.Usage(requests=1, input_tokens=10, output_tokens=2, total_tokens=12)
        return agents.ModelResponse(output=output, usage=usage, response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the test runs without streaming")


@agents.function_tool(name_override="bash", needs_approval=True)
def guarded_bash(command: str, description: str) -> str:
    """Runs a command, once a person allowed it."""
    return BASH_RESULT


@pytest.mark.parametrize("answer", ["allow", "reject"])
def test_an_openai_approval_is_asked_through_toolview(server: Server, answer: str) -> None:
    from toolview.adapters.openai_agents import ToolviewRunHooks

    session_id = f"approve-{answer}"

    def ui() -> None:
        with Client(server.address) as client, client.subscribe(session_id, "view") as updates:
            for update in updates:
                if update.view.WhichOneof("update") == "permission":
                    assert update.view.permission.request.call_id == "call_bash_9"
                    client.respond_permission(session_id, update.request_id, answer, via="test")
                    return

    async def run() -> Any:
        agent = agents.Agent(name="coder", instructions="Code.", model=ApprovalModel(), tools=[guarded_bash])
        async with AsyncClient(server.address) as client:
            hooks = ToolviewRunHooks(client.session(session_id))
            await hooks.prompt("Clean the build.")
            result = await agents.Runner.run(agent, "Clean the build.", hooks=hooks)
            state = await hooks.decide_interruptions(result, timeout=30)
            assert state is not None
            return await agents.Runner.run(agent, state, hooks=hooks)

    agents.set_tracing_disabled(True)
    answering = threading.Thread(target=ui)
    answering.start()
    result = asyncio.run(run())
    answering.join(timeout=30)
    assert result.final_output == "Done."
    # The turn, the prompt (2), the call (2), the request and its resolution, the answer (2), the end.
    card = final_cards(server, session_id, 1 + 2 + 2 + 2 + 2 + 1)["call_bash_9"]
    if answer == "allow":
        assert card.status == 2 and card.result.terminal.output == BASH_RESULT
    else:
        assert card.status == 3
        assert "Rejected by someone via test" in card.result.generic.content[0].text.text


class Script(agents.Model):
    """A model that gives its responses in order: each a list of function calls, or the text of
    its answer; no network. Its messages' ids carry its name (ids are the messages' keys)."""

    def __init__(self, name: str, *responses: Any) -> None:
        self.name, self.responses = name, list(responses)

    async def get_response(self, *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

        step = self.responses.pop(0)
        if isinstance(step, str):
            output: List[Any] = [
                ResponseOutputMessage(
                    type="message",
                    id=f"msg_{self.name}_{len(self.responses)}",
                    role="assistant",
                    status="completed",
                    content=[ResponseOutputText(type="output_text", text=step, annotations=[])],
                )
            ]
        else:
            output = [
                ResponseFunctionToolCall(
                    type="function_call",
                    id=f"fc_{call_id}",
                    call_id=call_id,
                    name=name,
                    arguments=json.dumps(a),
                )
                for call_id, name, a in step
            ]
        return agents.ModelResponse(output=output, usage=agents.Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        raise NotImplementedError


def test_an_agent_used_as_a_tool_publishes_its_calls_under_that_tool_call(server: Server) -> None:
    from toolview.adapters.openai_agents import ToolviewRunHooks

    @agents.function_tool
    def grep(pattern: str) -> str:
        """Searches the tests."""
        return "tests/net.rs:12: // flaky"

    async def run() -> Any:
        async with AsyncClient(server.address) as client:
            hooks = ToolviewRunHooks(client.session("openai-nested"))
            researcher = agents.Agent(
                name="researcher",
                instructions="Find things.",
                model=Script(
                    "researcher", [("call_in_1", "grep", {"pattern": "flaky"})], "net::reconnect is flaky."
                ),
                tools=[grep],
            )
            tool = researcher.as_tool("research", "Researches.", hooks=hooks.agent_tool("research"))
            lead = agents.Agent(
                name="lead",
                instructions="Lead.",
                model=Script(
                    "lead", [("call_agent_1", "research", {"input": "Find the flaky test."})], "Fixed."
                ),
                tools=[tool],
            )
            await hooks.prompt("Fix the flaky test.")
            return await agents.Runner.run(lead, "Fix the flaky test.", hooks=hooks)

    agents.set_tracing_disabled(True)
    result = asyncio.run(run())
    assert result.final_output == "Fixed."
    # The turn, the prompt (2), the agent tool's call and its child (2 each), the researcher's
    # answer and the lead's (2 each), the turn's end.
    events = 1 + 2 + 2 * 2 + 2 * 2 + 1
    cards = final_cards(server, "openai-nested", events)
    assert list(cards) == ["call_agent_1", "call_in_1"]
    assert cards["call_in_1"].parent_call_id == "call_agent_1"
    assert cards["call_in_1"].depth == 1
    assert cards["call_agent_1"].children.done == 1
    with Client(server.address) as client, client.subscribe("openai-nested", "view") as updates:
        views = [u.view for u in itertools.islice(updates, events)]
    answers = {v.message.text: v.message.parent_call_id for v in views if v.WhichOneof("update") == "message"}
    assert answers["net::reconnect is flaky."] == "call_agent_1"
    assert answers["Fixed."] == ""


def test_openai_hooks_refuse_a_sync_session(server: Server) -> None:
    from toolview.adapters.openai_agents import ToolviewRunHooks

    with Client(server.address) as client, pytest.raises(TypeError, match="AsyncSession"):
        ToolviewRunHooks(client.session("sync"))  # type: ignore[arg-type]
