"""1,000 events published while the server is killed (SIGKILL) and restarted mid-way: the
subscriber, in another process, ends with exactly the 1,000 updates in order, and the log holds
each event once — the publisher's retries were duplicates, never second events."""

import json
import time

from _server import Server, python_process

from toolview import Client

CALLS = 250
EVENTS = 4 * CALLS


def test_a_server_restart_loses_and_repeats_nothing(server: Server) -> None:
    subscriber = python_process("subscriber.py", server.address, "restart", str(EVENTS))
    assert subscriber.stdout.readline().strip() == "subscribed"
    publisher = python_process("publisher.py", server.address, "restart", str(CALLS))

    # Kill the server once the publisher is well under way, and bring it back on the same port
    # and data directory half a second later.
    for line in publisher.stdout:
        if line.startswith("acked") and int(line.split()[1]) >= 300:
            break
    else:
        raise AssertionError(f"the publisher ended early: {publisher.stderr.read()}")
    server.kill()
    time.sleep(0.5)
    server.start()

    out, err = publisher.communicate(timeout=120)
    assert publisher.returncode == 0, err
    counts = out.strip().splitlines()[-1].split()
    retries = int(counts[1])
    print(f"publisher: {out.strip().splitlines()[-1]}")
    assert retries > 0, f"the kill did not land mid-publish: {out}"

    sub_out, sub_err = subscriber.communicate(timeout=120)
    assert subscriber.returncode == 0, sub_err
    lines = sub_out.strip().splitlines()
    assert lines[-1].startswith("reconnects ") and int(lines[-1].split()[1]) >= 1, lines[-1]
    print(f"subscriber: {lines[-1]}")
    updates = [json.loads(line) for line in lines[:-1]]
    assert not any("reset" in u for u in updates), "the log survived the restart: no reset"
    assert [u["offset"] for u in updates] == list(range(1, EVENTS + 1))
    for u in updates:
        i, step = divmod(u["offset"] - 1, 4)
        assert u["call"] == f"c{i}", u
        if step == 3:
            assert "Status: Completed" in u["md"] and f"line {i}.2" in u["md"], u
        else:
            assert "Status: In Progress" in u["md"], u

    with Client(server.address) as client:
        info = client.get_session("restart")
    assert info.head_offset == EVENTS and info.calls == CALLS


def test_the_asyncio_client_rides_out_a_restart(server: Server) -> None:
    """The asyncio twins of the rules above: a subscription resumes after its cursor, and
    events published while the server is down are delivered once it is back."""
    import asyncio

    from toolview.aio import AsyncClient

    async def run() -> None:
        async with AsyncClient(server.address) as client:
            session = client.session("aio-restart")
            for i in range(10):
                await session.message("user", f"before {i}", message_id=f"b{i}")
            await client.flush()
            subscription = await client.subscribe("aio-restart", "view")
            offsets = []
            async for item in subscription:
                offsets.append(item.cursor.offset)
                if len(offsets) == 20:
                    break
            # 10 messages × (start, end) = 20 updates so far; now the server goes away.
            server.kill()
            for i in range(10):
                await session.message("user", f"during {i}", message_id=f"d{i}")
            await asyncio.sleep(0.5)
            server.start()
            await client.flush(timeout=30)
            async for item in subscription:
                offsets.append(item.cursor.offset)
                if len(offsets) == 40:
                    break
            subscription.close()
            assert offsets == list(range(1, 41))
            assert subscription.reconnects >= 1 and client.publisher.retries >= 1
            assert (await client.get_session("aio-restart")).head_offset == 40

    asyncio.run(run())
