"""Reading a server-streaming call, in both flavours: the one thing about a stream that
``grpc`` and ``grpc.aio`` spell differently (``next`` and ``StopIteration``; ``read`` and
``EOF``). ``aio.py`` uses ``aread``; the sync client generated from it, ``read``."""

from __future__ import annotations

from typing import Iterator, Optional, Protocol

import grpc.aio

from .v1 import session_service_pb2

Response = session_service_pb2.SubscribeResponse


class Stream(Iterator[Response], Protocol):
    """A sync server-streaming call: its responses, and a way to end it."""

    def cancel(self) -> bool: ...


class AsyncStream(Protocol):
    """An asyncio server-streaming call."""

    async def read(self) -> object: ...

    def cancel(self) -> bool: ...


def read(stream: Stream) -> Optional[Response]:
    """The next response, or ``None`` when the stream ended."""
    return next(stream, None)


async def aread(stream: AsyncStream) -> Optional[Response]:
    """The next response, or ``None`` when the stream ended."""
    response = await stream.read()
    if response is grpc.aio.EOF:
        return None
    assert isinstance(response, Response)
    return response
