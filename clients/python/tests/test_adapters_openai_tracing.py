"""The OpenAI Agents tracing processor, driven by the SDK offline (a Chat Completions model
against a local endpoint that asks for a tool sleeping 2 s, then answers): a subscriber sees the
call running before the tool returns, then the whole turn in the session named by the trace's
group id."""

import asyncio
import threading
import time
from typing import Any, Dict, Optional

import pytest
from _adapters import FakeChatCompletions, conversation, final_cards
from _server import Server

from toolview import Client

agents = pytest.importorskip("agents")

SLEEP = {"name": "bash", "arguments": '{"command": "sleep 2"}'}
SLEEP_CALL = {"content": None, "tool_calls": [{"id": "call_sleep_1", "type": "function", "function": SLEEP}]}


def test_a_call_shows_running_before_its_tool_returns(server: Server) -> None:
    from openai import AsyncOpenAI

    from toolview.adapters.openai_tracing import ToolviewTracingProcessor

    endpoint = FakeChatCompletions([SLEEP_CALL, {"content": "Slept."}])
    model = agents.OpenAIChatCompletionsModel(
        model="gpt-test", openai_client=AsyncOpenAI(base_url=endpoint.url, api_key="test")
    )
    returned: Dict[str, float] = {}

    @agents.function_tool(name_override="bash")
    async def sleepy_bash(command: str) -> str:
        """Runs a command."""
        await asyncio.sleep(2)
        returned["at"] = time.monotonic()
        return "done sleeping"

    # A subscriber following the session live: when it first saw the call running.
    seen: Dict[str, Optional[float]] = {"running": None}
    ready = threading.Event()

    def watch() -> None:
        with Client(server.address) as client, client.subscribe("tracing-live", "view") as subscription:
            ready.set()
            for update in subscription:
                kind = update.view.WhichOneof("update")
                if kind == "card" and update.view.card.status == 1 and seen["running"] is None:  # in progress
                    seen["running"] = time.monotonic()
                if kind == "turn" and update.view.turn.finished:
                    return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    ready.wait(10)

    client = Client(server.address)
    agents.set_tracing_disabled(False)
    agents.set_trace_processors([ToolviewTracingProcessor(client)])
    try:
        agent = agents.Agent(name="coder", instructions="Code.", model=model, tools=[sleepy_bash])
        config = agents.RunConfig(group_id="tracing-live")
        result: Any = asyncio.run(agents.Runner.run(agent, "Sleep a little.", run_config=config))
        client.flush(10)
    finally:
        agents.set_trace_processors([])
        agents.set_tracing_disabled(True)
        endpoint.http.shutdown()
        client.close()
    watcher.join(10)

    assert result.final_output == "Slept."
    running = seen["running"]
    assert running is not None and running < returned["at"], (running, returned)
    # The turn, the prompt (2), the call (2), the answer (2), the end.
    cards = final_cards(server, "tracing-live", 8)
    assert list(cards) == ["call_sleep_1"]
    assert cards["call_sleep_1"].tool_name == "bash"
    assert cards["call_sleep_1"].status == 2  # completed
    assert conversation(server, "tracing-live", 8) == [
        ("message", 1, "Sleep a little."),
        ("message", 2, "Slept."),
        ("turn", 20, 10),
    ]


def test_an_agent_used_as_a_tool_runs_its_calls_under_that_call(server: Server) -> None:
    from openai import AsyncOpenAI

    from toolview.adapters.openai_tracing import ToolviewTracingProcessor

    def call(call_id: str, name: str, args: str) -> Dict[str, Any]:
        return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}

    # The outer agent asks the researcher; the researcher runs bash and answers; the outer answers.
    endpoint = FakeChatCompletions(
        [
            {"content": None, "tool_calls": [call("call_ask_1", "researcher", '{"input": "what is here?"}')]},
            {"content": None, "tool_calls": [call("call_ls_1", "bash", '{"command": "ls"}')]},
            {"content": "Two files."},
            {"content": "The researcher found two files."},
        ]
    )
    model = agents.OpenAIChatCompletionsModel(
        model="gpt-test", openai_client=AsyncOpenAI(base_url=endpoint.url, api_key="test")
    )

    @agents.function_tool
    def bash(command: str) -> str:
        """Runs a command."""
        return "a.txt\nb.txt"

    researcher = agents.Agent(name="researcher", instructions="Look.", model=model, tools=[bash])
    outer = agents.Agent(
        name="lead",
        instructions="Delegate.",
        model=model,
        tools=[researcher.as_tool(tool_name="researcher", tool_description="Looks around.")],
    )
    client = Client(server.address)
    agents.set_tracing_disabled(False)
    agents.set_trace_processors([ToolviewTracingProcessor(client, session_id="tracing-nested")])
    try:
        asyncio.run(agents.Runner.run(outer, "Look around."))
        client.flush(10)
    finally:
        agents.set_trace_processors([])
        agents.set_tracing_disabled(True)
        endpoint.http.shutdown()
        client.close()
    # The turn, the prompt (2), two calls (4), two answers (2 each), the end.
    cards = final_cards(server, "tracing-nested", 12)
    assert list(cards) == ["call_ask_1", "call_ls_1"]
    assert cards["call_ls_1"].parent_call_id == "call_ask_1"
    assert cards["call_ask_1"].parent_call_id == ""
