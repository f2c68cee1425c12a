"""Reading a server-streaming call, in both flavours: the one thing about a stream that
``grpc`` and ``grpc.aio`` spell differently (``next`` and ``StopIteration``; ``read`` and
``EOF``). ``aio.py`` uses ``aread``; the sync client generated from it, ``read``."""

from __future__ import annotations

from typing import Any, Iterator, Optional, Protocol, Type

import grpc.aio

from ._requests import Response, checked


class Stream(Iterator[Any], Protocol):
    """A sync server-streaming call: its responses, and a way to end it."""

    def cancel(self) -> bool: ...


class AsyncStream(Protocol):
    """An asyncio server-streaming call."""

    async def read(self) -> object: ...

    def cancel(self) -> bool: ...


def read(stream: Stream, kind: Type[Response]) -> Optional[Response]:
    """The next response, as ``kind`` (the stubs are untyped), or ``None`` when the stream ended."""
    response = next(stream, None)
    return None if response is None else checked(response, kind)


async def aread(stream: AsyncStream, kind: Type[Response]) -> Optional[Response]:
    """The next response, as ``kind`` (the stubs are untyped), or ``None`` when the stream ended."""
    response = await stream.read()
    return None if response is grpc.aio.EOF else checked(response, kind)
