"""Calls as models make them, published with this package against a real server: a call whose
input streams (the UIs show it pending with the input so far, then the presenters' card), and
the misuse the client refuses before anything is sent."""

import asyncio
import itertools
import json

import pytest
from _server import Server

from toolview import Capabilities, Client
from toolview.aio import AsyncClient
from toolview.errors import UsageError
from toolview.v1 import rendering_pb2

CONTENT = "def main():\n    print('hello')\n" * 40
ARGS = {"file_path": "/work/proj/main.py", "content": CONTENT}


def take(subscription, n: int) -> list:
    with subscription:
        return list(itertools.islice(subscription, n))


def test_a_streaming_call_is_pending_with_its_input_then_the_presenters_card(server: Server) -> None:
    text = json.dumps(ARGS)
    # The first piece ends inside the path: the title waits for it.
    pieces = [text[:20]] + [text[i : i + 97] for i in range(20, len(text), 97)]
    with Client(server.address) as client:
        session = client.session("streams")
        call = session.start_call("Write", pieces[0], call_id="w1", streaming=True)
        for piece in pieces[1:]:
            call.input_delta(piece)
        call.input_complete(ARGS)
        call.finish("written")
        client.flush()
        # The start and the pieces; then the completion and the finish.
        events = len(pieces)
        info = client.get_session("streams")
        assert info.head_offset == events + 2
        # A server without auth grants every right (a UI shows the prompts' buttons).
        assert list(info.rights) == ["publish", "subscribe", "read", "approve"]

        caps = Capabilities(output_appends=True, diff=True)
        views = [u.view for u in take(client.subscribe("streams", "view", caps), events + 2)]
        # A UI's card, as it applies the updates: a card replaces, an append grows the input.
        card = rendering_pb2.CardSnapshot()
        titles, appends = [], 0
        for view in views[:events]:
            kind = view.WhichOneof("update")
            if kind == "card":
                card.CopyFrom(view.card)
                titles.append(card.call.generic.title)
            elif kind == "input_appended":
                card.input += view.input_appended.text
                appends += 1
            assert card.status == rendering_pb2.CALL_STATUS_PENDING
        # The input so far, piece by piece (a card where the server read it again, with the
        # heading it read: the path once complete); never half a path in the title.
        assert card.input == text and appends > 0
        assert titles[0] == "Write" and titles[-1] == "Write /work/proj/main.py"
        complete = views[events].card
        assert complete.status == rendering_pb2.CALL_STATUS_IN_PROGRESS
        assert complete.call.WhichOneof("card") == "diff" and not complete.input
        assert views[events + 1].card.status == rendering_pb2.CALL_STATUS_COMPLETED

        updates = take(client.subscribe("streams", "ai_sdk"), events + 2)
        chunks = [json.loads(j) for u in updates for j in u.ai_sdk.json]
        deltas = "".join(c["inputTextDelta"] for c in chunks if c["type"] == "tool-input-delta")
        assert deltas == text
        available = [c for c in chunks if c["type"] == "tool-input-available"]
        assert [a["input"] for a in available] == [ARGS]


def test_streaming_misuse_is_refused_before_anything_is_sent(server: Server) -> None:
    with Client(server.address) as client:
        session = client.session("stream-misuse")
        whole = session.start_call("bash", {"command": "true"}, call_id="c1")
        with pytest.raises(UsageError, match="streaming=True"):
            whole.input_delta("x")
        whole.finish("ok")
        with pytest.raises(UsageError, match="a str, or nothing"):
            session.start_call("bash", {"command": "true"}, call_id="c2", streaming=True)
        streaming = session.start_call("bash", '{"command": "tr', call_id="c3", streaming=True)
        with pytest.raises(UsageError, match="input_complete first"):
            streaming.output("early")
        streaming.input_complete({"command": "true"})
        with pytest.raises(UsageError, match="streaming=True"):
            streaming.input_complete({"command": "true"})
        streaming.finish("ok")
        client.flush()
        # c1's start and end, c3's start, completion and end: nothing refused was sent.
        assert client.get_session("stream-misuse").head_offset == 5


def test_the_asyncio_client_streams_input(server: Server) -> None:
    async def main() -> None:
        async with AsyncClient(server.address) as client:
            session = client.session("streams-aio")
            call = await session.start_call("Bash", "", call_id="b1", streaming=True)
            await call.input_delta('{"command": "cargo ')
            await call.input_delta('test"}')
            await call.input_complete({"command": "cargo test"})
            await call.output("running\n")
            await call.finish("ok")
            await client.flush()
            info = await client.get_session("streams-aio")
            assert info.head_offset == 6

    asyncio.run(main())


def test_a_subagents_calls_nest_under_the_call_that_runs_it(server: Server) -> None:
    with Client(server.address) as client:
        session = client.session("nests")
        task = session.start_call(
            "Task", {"description": "Find the flaky test", "prompt": "Look."}, call_id="t1"
        )
        session.message("assistant", "Searching.", message_id="m1", parent=task)
        with task.child_call("Grep", {"pattern": "flaky"}, call_id="g1") as grep:
            grep.finish("tests/net.rs:12")
        bash = session.start_call("Bash", {"command": "cargo test"}, call_id="b1", parent="t1")
        with bash.child_call("Read", {"file_path": "/tmp/log"}, call_id="r1") as read:
            read.finish("not found", is_error=True)
        bash.finish("ok")
        task.finish("net::reconnect")
        with pytest.raises(UsageError, match="cannot run under itself"):
            session.start_call("Bash", {"command": "true"}, call_id="self", parent="self")
        client.flush()

        views = [u.view for u in take(client.subscribe("nests", "view"), 10)]
        cards = {v.card.call_id: v.card for v in views if v.WhichOneof("update") == "card"}
        assert (cards["g1"].parent_call_id, cards["g1"].depth) == ("t1", 1)
        assert (cards["r1"].parent_call_id, cards["r1"].depth) == ("b1", 2)
        message = next(v.message for v in views if v.WhichOneof("update") == "message")
        assert (message.parent_call_id, message.depth) == ("t1", 1)
        # The parent's card at its finish: what its children did.
        progress = cards["t1"].children
        assert (progress.running, progress.done, progress.failed) == (0, 2, 0)
        assert cards["b1"].children.failed == 1


def test_an_mcp_tools_result_passed_through_keeps_its_app_on_the_card(server: Server) -> None:
    # What an MCP client got back, passed through as the result's meta.
    meta = {
        "_meta": {"ui": {"resourceUri": "ui://weather/view"}},
        "structuredContent": {"city": "Paris", "temp": 21},
        "mcpServer": {"serverId": "weather", "type": "http", "url": "http://127.0.0.1:3001/mcp"},
    }
    with Client(server.address) as client:
        call = client.session("mcp").start_call("get_weather", {"city": "Paris"}, call_id="w1")
        call.finish("21 °C in Paris", meta=meta)
        client.flush()
        started, finished = [u.view.card for u in take(client.subscribe("mcp", "view"), 2)]
    assert not started.HasField("mcp_app")
    assert finished.mcp_app.resource_uri == "ui://weather/view"
    assert finished.mcp_app.server_id == "weather"
    assert json.loads(finished.mcp_app.structured_content_json) == {"city": "Paris", "temp": 21}
