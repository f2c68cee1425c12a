"""Writes the Python sync client from the asyncio one, as httpcore does (unasync): the client
is written once, in clients/python/src/toolview/aio.py, and client.py is made from it token by
token. Run by scripts/generate-clients.sh (which formats the result with ruff, as the package
is formatted); usage: unasync_client.py <aio.py> <client.py to write>."""

import os
import shutil
import sys
import tempfile

import unasync

# What the asyncio source names differently from the sync client (unasync already turns
# `async`/`await`, `__aenter__`, `__anext__`, `AsyncIterator`, `StopAsyncIteration` around).
REPLACEMENTS = {
    # The public classes keep their sync names (unasync alone would write `SyncClient`).
    "AsyncClient": "Client",
    "AsyncSession": "Session",
    "AsyncCall": "Call",
    "AsyncMessage": "Message",
    "AsyncTurn": "Turn",
    "AsyncSubscription": "Subscription",
    # The parts whose sync twin is written apart: a thread, not a task, sends the batches; a
    # sync stream is read with `next`; a sync channel is made by `grpc`, not `grpc.aio`.
    "AsyncPublisher": "Publisher",
    "_async_publisher": "_publisher",
    "AsyncStream": "Stream",
    "aread": "read",
    "aio_channel": "channel",
    # `from asyncio import sleep` → `from time import sleep`.
    "asyncio": "time",
}


HEADER = "# Generated from aio.py by scripts/generate-clients.sh (unasync): edit aio.py, not this.\n"


def main(source: str, target: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "_async", "client.py")
        os.makedirs(os.path.dirname(src))
        shutil.copy(source, src)
        rule = unasync.Rule("/_async/", "/_sync/", additional_replacements=REPLACEMENTS)
        unasync.unasync_files([src], rules=[rule])
        with open(os.path.join(tmp, "_sync", "client.py")) as f:
            text = f.read()
    with open(target, "w") as f:
        f.write(HEADER + text)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
