"""Permission requests from the harness side against a real server: a call asks and blocks, a
UI answers, the first answer wins and a late one learns the winner; nobody answering in time is
the reject option; the same with asyncio; a fleet watch sees who waits."""

import asyncio
import threading
from datetime import timezone
from typing import Any, List

import pytest
from _server import Server

from toolview import SYNCED, Client, Decision, Synced, allow_once, reject_once
from toolview.aio import AsyncClient
from toolview.errors import UsageError
from toolview.v1 import summary_pb2


def wait_for_prompt(server: Server, session_id: str) -> str:
    """The request id of the first permission request a VIEW subscriber sees."""
    with Client(server.address) as client, client.subscribe(session_id, "view") as updates:
        for update in updates:
            if update.view.WhichOneof("update") == "permission":
                return str(update.request_id)
    raise AssertionError("no permission request")


def test_a_call_asks_and_the_first_answer_wins(server: Server) -> None:
    decided: List[Decision] = []

    def harness() -> None:
        with Client(server.address) as client:
            session = client.session("perm")
            with session.start_call("bash", {"command": "rm -rf build", "description": "Clean"}) as call:
                decided.append(call.request_permission("Run rm -rf build?", description="Deletes build/"))
                call.finish("not run", is_error=True)

    thread = threading.Thread(target=harness)
    thread.start()
    request_id = wait_for_prompt(server, "perm")
    with Client(server.address) as ui:
        won, first = ui.respond_permission("perm", request_id, "reject", reason="not now", via="test")
        assert won and (first.outcome, first.option_id, first.via) == ("selected", "reject", "test")
        late_won, late = ui.respond_permission("perm", request_id, "allow")
        assert not late_won and late.option_id == "reject" and late.reason == "not now"
    thread.join(timeout=30)
    [decision] = decided
    assert decision.outcome == "selected"
    assert (decision.option_id, decision.kind, decision.allowed) == ("reject", "reject_once", False)
    assert decision.responder == "someone via test"
    assert decision.reason == "not now"


def test_nobody_answering_in_time_is_the_reject_option(server: Server) -> None:
    with Client(server.address) as client:
        decision = client.session("perm").request_permission(
            "Push to main?", [allow_once(), reject_once("no", "No")], timeout=0.3
        )
    assert (decision.outcome, decision.option_id, decision.kind) == ("expired", "no", "reject_once")
    assert not decision.allowed
    assert (decision.subject, decision.via) == ("toolview", "server")


def test_asyncio_asks_too(server: Server) -> None:
    async def run() -> Any:
        async with AsyncClient(server.address) as harness, AsyncClient(server.address) as ui:
            call = await harness.session("aperm").start_call("bash", {"command": "ls", "description": "List"})
            asked = asyncio.ensure_future(call.request_permission("List files?", request_id="ask-1"))
            while True:
                try:
                    won, _ = await ui.respond_permission("aperm", "ask-1", "always")
                    break
                except Exception:  # not published yet
                    await asyncio.sleep(0.05)
            assert won
            return await asked

    decision = asyncio.run(run())
    assert (decision.option_id, decision.kind, decision.allowed) == ("always", "allow_always", True)


def test_one_sided_options_are_refused_before_anything_is_sent(server: Server) -> None:
    with Client(server.address) as client, pytest.raises(UsageError, match="one allow and one reject"):
        client.session("perm").request_permission("Sure?", [allow_once()])


def test_the_fleet_watch_shows_who_waits_and_when_it_is_answered(server: Server) -> None:
    """A harness asks; a watch of sessions waiting on a person gets the session with its prompt,
    and once it is answered, the same session again, no longer waiting."""

    def harness() -> None:
        with Client(server.address) as client:
            session = client.session("fleet")
            with session.start_call("bash", {"command": "make deploy", "description": "Deploy"}) as call:
                call.request_permission("Deploy to production?")
                call.finish("deployed")

    with Client(server.address) as ui:
        watch = ui.watch_sessions(states=["requires_action"])
        assert next(watch) is SYNCED, "nothing waits yet"
        thread = threading.Thread(target=harness)
        thread.start()
        waiting = next(watch)
        assert not isinstance(waiting, Synced)
        assert waiting.session_id == "fleet"
        assert waiting.summary.state == summary_pb2.SESSION_STATE_REQUIRES_ACTION
        [prompt] = waiting.summary.pending
        assert prompt.title == "Deploy to production?"
        ui.respond_permission("fleet", prompt.request_id, "allow")
        answered = next(watch)
        assert not isinstance(answered, Synced) and answered.session_id == "fleet"
        assert answered.summary.state != summary_pb2.SESSION_STATE_REQUIRES_ACTION
        watch.close()
        thread.join(timeout=30)


def test_asyncio_watches_the_fleet_too(server: Server) -> None:
    async def run() -> None:
        async with AsyncClient(server.address) as client:
            await client.session("afleet").start("/afleet-only")
            await client.flush()
            watch = client.watch_sessions(cwd_prefix="/afleet-only")
            first = await watch.__anext__()
            assert not isinstance(first, Synced) and first.session_id == "afleet"
            assert await watch.__anext__() is SYNCED
            await watch.aclose()

    asyncio.run(run())


def test_a_watch_resumes_from_a_time_with_what_changed_since(server: Server) -> None:
    """With ``updated_since`` the first page is the sessions changed since, in any state: one that
    left a ``requires_action`` watch meanwhile comes (with its new state), one unchanged does not."""

    def harness() -> None:
        with Client(server.address) as client:
            session = client.session("rs-asked")
            session.start("/resume-only")
            with session.start_call("bash", {"command": "make", "description": "Build"}) as call:
                call.request_permission("Go?")
                call.finish("built")

    with Client(server.address) as client:
        client.session("rs-still").start("/resume-only")
        client.flush()
        thread = threading.Thread(target=harness)
        thread.start()
        waiting = client.watch_sessions(states=["requires_action"], cwd_prefix="/resume-only")
        assert next(waiting) is SYNCED
        asked = next(waiting)
        assert not isinstance(asked, Synced)
        waiting.close()
        # A watcher that saw this much goes away; the prompt is answered meanwhile.
        since = asked.updated_at.ToDatetime(tzinfo=timezone.utc)
        client.respond_permission("rs-asked", asked.summary.pending[0].request_id, "allow")
        thread.join(timeout=30)
        watch = client.watch_sessions(
            states=["requires_action"], cwd_prefix="/resume-only", updated_since=since
        )
        first = next(watch)
        assert not isinstance(first, Synced)
        assert first.session_id == "rs-asked"
        assert first.summary.state != summary_pb2.SESSION_STATE_REQUIRES_ACTION
        assert next(watch) is SYNCED, "rs-still did not change since"
        watch.close()
