"""The client against a real server: a whole turn published and read back in two targets, the
typed errors, the bounded buffer with the server gone, the asyncio client, the unary calls."""

import asyncio
import itertools
import json
import logging
import tempfile

import grpc
import pytest
from _server import Server

from toolview import Capabilities, Client, Cursor, PublishOptions, Reset, Usage
from toolview.aio import AsyncClient
from toolview.errors import (
    BufferFull,
    ClientClosed,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unavailable,
    Undelivered,
    UsageError,
    field_violation,
)
from toolview.v1 import events_pb2, session_service_pb2, session_service_pb2_grpc, summary_pb2, views_pb2


def take(subscription, n: int) -> list:
    """The first ``n`` items of a subscription, which is then closed."""
    with subscription:
        return list(itertools.islice(subscription, n))


def publish_turn(client: Client, session_id: str) -> None:
    session = client.session(session_id)
    session.start("/work/proj")
    with session.start_turn("turn-1") as turn:
        session.message("user", "Run the tests.", message_id="user-1")
        thought = session.start_message("reasoning", "They use ", message_id="think-1")
        thought.append("vitest.")
        thought.finish()
        with session.start_call("bash", {"command": "npm test"}, call_id="call_1") as call:
            call.output("> vitest run\n")
            call.finish("> vitest run\nTests  1 failed\n[exit code: 2]", is_error=True)
        session.message("assistant", "One test fails.")
        turn.finish("end_turn", Usage(input_tokens=100, output_tokens=20))


def test_a_turn_reads_back_in_every_form(server: Server) -> None:
    with Client(server.address) as client:
        publish_turn(client, "demo")
        client.flush()
        info = client.get_session("demo")
        assert (info.head_offset, info.calls, info.title, info.cwd) == (13, 1, "Run the tests.", "/work/proj")

        markdown = [u.markdown for u in take(client.subscribe("demo", "markdown"), 13)]
        text = "\n".join(markdown)
        assert "**User:**\n\nRun the tests." in text and "npm test" in text and "Status: Failed" in text, text
        assert "vitest." not in text, "reasoning is shown only with the capability"

        caps = Capabilities(reasoning=True, terminal=True)
        acp = [json.loads(j) for u in take(client.subscribe("demo", "acp", caps), 13) for j in u.acp.json]
        kinds = [m["params"]["update"]["sessionUpdate"] for m in acp if m.get("method") == "session/update"]
        assert "agent_thought_chunk" in kinds and "tool_call" in kinds and "usage_update" not in kinds

        sessions = [s.session_id for s in client.list_sessions(page_size=1)]
        assert sessions == ["demo"]
        # Each with its summary: the turn ended, nothing is open; the state filters by it.
        [listed] = client.list_sessions()
        assert listed.summary.state == summary_pb2.SESSION_STATE_IDLE
        assert (listed.summary.turns, listed.summary.failed_calls) == (1, 1)
        assert listed.summary.activity == "One test fails."
        assert listed.summary.usage.input_tokens == 100
        assert [s.session_id for s in client.list_sessions(states=["idle"])] == ["demo"]
        assert list(client.list_sessions(states=["requires_action", "running"])) == []
        with pytest.raises(ValueError, match="state: one of"):
            list(client.list_sessions(states=["waiting"]))
        # The harness closes it: ended, until anything starts again.
        client.session("demo").end("the user closed the tab")
        client.flush()
        assert [s.session_id for s in client.list_sessions(states=["ended"])] == ["demo"]
        client.session("demo").message("user", "And again?")
        client.flush()
        assert list(client.list_sessions(states=["ended"])) == []


def test_a_live_subscription_starts_after_the_head(server: Server) -> None:
    with Client(server.address) as client:
        publish_turn(client, "live")
        client.flush()
        subscription = client.subscribe("live", "view", start="live")
        client.session("live").message("user", "And now?")
        client.flush()
        first = next(subscription)
        assert first.cursor.offset == 14 and first.message_id
        subscription.close()


def test_refusals_are_typed_and_name_the_field(server: Server) -> None:
    with Client(server.address) as client:
        session = client.session("bad")
        session.start_call("bash", {"command": "true"}, call_id="c1").finish("ok")
        # Output after the call's end breaks the lifecycle rule.
        stray = events_pb2.ToolEvent(
            event_id="stray-1", call_output=events_pb2.ToolCallOutput(call_id="c1", data="x")
        )
        session.publish(stray)
        session.message("user", "still here")
        with pytest.raises(FailedPrecondition) as refused:
            client.flush()
        # The field names the event's place in the request it went out in.
        assert refused.value.event_index is not None and "already finished" in refused.value.details
        assert [f.event.event_id for f in refused.value.failures] == ["stray-1"]
        # Only the refused event was dropped: the events around it were appended.
        assert client.get_session("bad").head_offset == 4  # call start, end; message start, end

        session.publish(events_pb2.ToolEvent(event_id="bad id", session_started=events_pb2.SessionStarted()))
        with pytest.raises(InvalidArgument) as invalid:
            client.flush()
        assert invalid.value.field == "events[0].event_id"
        # The server sends the field apart, as a google.rpc.BadRequest detail.
        stub = session_service_pb2_grpc.SessionServiceStub(grpc.insecure_channel(server.address))
        bad = events_pb2.ToolEvent(
            session_id="bad", event_id="bad id", session_started=events_pb2.SessionStarted()
        )
        with pytest.raises(grpc.RpcError) as raw:
            stub.Publish(session_service_pb2.PublishRequest(events=[bad]))
        assert field_violation(raw.value.trailing_metadata()) == "events[0].event_id"
        with pytest.raises(NotFound):
            client.get_session("never")


def test_the_buffer_is_bounded_while_the_server_is_away() -> None:
    with tempfile.TemporaryDirectory() as data:
        server = Server(data).start()
        server.kill()
        options = PublishOptions(max_buffered_events=5, block_timeout=0.2)
        client = Client(server.address, publish=options)
        session = client.session("away")
        for i in range(5):
            session.start_call("bash", call_id=f"c{i}")
        with pytest.raises(BufferFull):
            session.start_call("bash", call_id="c5")
        # The server comes back on the same port: the buffered events go through.
        server.start()
        try:
            client.flush(timeout=30)
            assert client.get_session("away").head_offset == 5
            assert client.publisher.retries > 0
            client.close()
        finally:
            server.stop()
    with pytest.raises(Undelivered) as undelivered:
        gone = Client(server.address, publish=PublishOptions(initial_backoff=0.01))
        gone.session("away").start_call("bash")
        gone.close(timeout=0.3)
    assert undelivered.value.pending == 1


def test_a_closed_port_is_named_at_once_and_in_the_undelivered_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Nothing listens: the first failed attempt logs one warning saying why (not one per
    retry), and ``close`` running out of time names the refused connection with the count."""
    # Port 1: nothing listens there, and no parallel test's server can take it.
    address = "127.0.0.1:1"
    caplog.set_level(logging.WARNING, logger="toolview")
    with pytest.raises(Undelivered) as undelivered:
        gone = Client(address, publish=PublishOptions(initial_backoff=0.01, max_backoff=0.05))
        for i in range(25):
            gone.session("away").start_call("bash", call_id=f"c{i}")
        gone.close(timeout=1.0)
    assert undelivered.value.pending == 25
    assert "refused" in str(undelivered.value).lower(), undelivered.value
    warnings = [r for r in caplog.records if "publishing failed" in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in caplog.records]
    assert "refused" in warnings[0].getMessage().lower()

    async def run() -> None:
        client = AsyncClient(address, publish=PublishOptions(initial_backoff=0.01))
        await client.session("away").start_call("bash")
        with pytest.raises(Undelivered, match=r"(?i)refused"):
            await client.close(timeout=1.0)

    asyncio.run(run())


def test_the_asyncio_client(server: Server) -> None:
    async def run() -> None:
        async with AsyncClient(server.address) as client:
            session = client.session("aio")
            async with await session.start_turn("t1"):
                await session.message("user", "Read the config.")
                async with await session.start_call(
                    "read", {"file_path": "/work/app.ts"}, call_id="r1"
                ) as call:
                    await call.finish("export const port = 8080", meta={"lang": "ts"})
            await client.flush()
            updates = []
            subscription = await client.subscribe("aio", "ai_sdk")
            async for item in subscription:
                assert not isinstance(item, Reset)
                updates.append(item)
                if item.cursor.offset == 6:
                    break
            subscription.close()
            chunks = [json.loads(j)["type"] for u in updates for j in u.ai_sdk.json]
            assert "tool-input-available" in chunks and "tool-output-available" in chunks
            assert [s.session_id async for s in client.list_sessions()] == ["aio"]
            assert [s.session_id async for s in client.list_sessions(states=["failed"])] == []
            presented = await client.present("read", {"file_path": "/work/app.ts"})
            assert presented.call.generic.title == "Read /work/app.ts"

    asyncio.run(run())


def test_present_and_render_need_no_session(server: Server) -> None:
    with Client(server.address) as client:
        presented = client.present("bash", {"command": "ls"}, "a\nb\n", meta={"exitCode": 0})
        assert presented.HasField("result")
        events = [
            events_pb2.ToolEvent(
                session_id="x",
                event_id="1",
                call_started=events_pb2.ToolCallStarted(
                    call_id="c1", tool_name="bash", arguments_json='{"command": "ls"}'
                ),
            )
        ]
        [update] = client.render(events, "markdown")
        assert (
            update.markdown.startswith("**Tool Call: bash**\nStatus: In Progress")
            and '"command": "ls"' in update.markdown
        )


def test_a_lost_cursor_yields_a_reset_then_the_session_again(server: Server) -> None:
    with Client(server.address) as client:
        client.session("reset").message("user", "hello")
        client.flush()
        stale = Cursor(offset=1, epoch="an-epoch-that-is-gone")
        items = take(client.subscribe("reset", "view", start=stale), 3)
    assert isinstance(items[0], Reset) and items[0].head_offset == 2
    assert [i.cursor.offset for i in items[1:]] == [1, 2]


def test_custom_views_replace_the_presenters(server: Server) -> None:
    call_view = views_pb2.ToolCallView(
        generic=views_pb2.GenericCallView(title="Deploy web-1", kind=views_pb2.TOOL_KIND_EXECUTE)
    )
    result_view = views_pb2.ToolResultView(generic=views_pb2.GenericResultView(title="Deployed web-1"))
    with Client(server.address) as client:
        call = client.session("custom").start_call("deploy", {"host": "web-1"}, call_id="d1", view=call_view)
        call.finish("ok", view=result_view)
        client.flush()
        [_, finished] = take(client.subscribe("custom", "view"), 2)
    assert finished.view.card.call == call_view
    assert finished.view.card.result.generic.title == "Deployed web-1"


def test_threads_writing_one_calls_output_lose_no_chunk(server: Server) -> None:
    import threading

    with Client(server.address) as client:
        call = client.session("threads").start_call("bash", {"command": "make -j8"}, call_id="make")
        threads = [
            threading.Thread(target=lambda t=t: [call.output(f"{t}:{i}\n") for i in range(100)])
            for t in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        client.flush()
        assert client.get_session("threads").head_offset == 1 + 800
        assert client.publisher.duplicates == 0


def test_misuse_is_refused_before_anything_is_sent(server: Server) -> None:
    with Client(server.address) as client:
        session = client.session("misuse")
        call = session.start_call("bash", {"command": "true"}, call_id="c1")
        call.finish("ok")
        with pytest.raises(UsageError, match="finished twice"):
            call.finish("again")
        with pytest.raises(UsageError, match="output after its finish"):
            call.output("late")
        # The same call id again, from another handle on the session too.
        with pytest.raises(UsageError, match="already started"):
            client.session("misuse").start_call("bash", {"command": "true"}, call_id="c1")
        client.flush()
        # Nothing of the refused uses was sent: the call's start and end only.
        assert client.get_session("misuse").head_offset == 2
    with pytest.raises(ClientClosed):
        client.subscribe("misuse")
    with pytest.raises(ClientClosed):
        client.get_session("misuse")


def test_the_asyncio_client_refuses_misuse_too(server: Server) -> None:
    async def main() -> None:
        async with AsyncClient(server.address) as client:
            session = client.session("misuse-aio")
            call = await session.start_call("bash", {"command": "true"}, call_id="c1")
            await call.finish("ok")
            with pytest.raises(UsageError):
                await call.finish("again")
            with pytest.raises(UsageError):
                await session.start_call("bash", call_id="c1")
        with pytest.raises(ClientClosed):
            await client.subscribe("misuse-aio")

    asyncio.run(main())


def test_a_subscription_to_a_server_that_is_gone_gives_up_at_its_deadline() -> None:
    with tempfile.TemporaryDirectory() as data:
        server = Server(data).start()
        address = server.address
        server.kill()
    with Client(address) as client:
        subscription = client.subscribe("gone", start="beginning", reconnect_deadline=0.5)
        with pytest.raises(Unavailable):
            next(subscription)
        assert subscription.reconnects >= 1, "it tried again before giving up"
