"""Connecting as a harness meets servers: through a slow hop (a relay that holds the server's
first bytes for 150 ms, as a distant proxy would), and by the URL forms the CLI takes."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Iterator, List

import pytest
from _server import Server

from toolview import Client
from toolview.aio import AsyncClient

#: What the relay holds back the server's first bytes for: longer than the 100 ms a connection
#: attempt was once given.
DELAY = 0.15


class Relay:
    """A TCP relay on 127.0.0.1 to ``upstream`` that delays the first bytes of each connection's
    answer by ``DELAY`` (so the server's HTTP/2 SETTINGS frame arrives late)."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: List[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, 0.0), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, DELAY), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, delay: float) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if delay:
                    time.sleep(delay)
                    delay = 0.0
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()
        for s in self.sockets:
            s.close()


@pytest.fixture
def relay(server: Server) -> Iterator[Relay]:
    r = Relay(server.address)
    try:
        yield r
    finally:
        r.close()


def test_every_call_goes_through_a_slow_hop(server: Server, relay: Relay) -> None:
    with Client(server.address) as direct:
        session = direct.session("slow")
        session.message("user", "hello")
        direct.flush()
    # One-shot calls, each on a fresh client (a fresh connection through the relay).
    with Client(relay.address) as client:
        assert client.get_session("slow").head_offset == 2
    with Client(relay.address) as client:
        assert [s.session_id for s in client.list_sessions()] == ["slow"]
    with Client(relay.address) as client:
        subscription = client.subscribe("slow", "view", start="beginning")
        assert next(subscription).cursor.offset == 1
        subscription.close()
    with Client(relay.address) as client:
        live = client.subscribe("slow", "view", start="live")
        client.session("slow").message("user", "again")
        client.flush()
        assert next(live).cursor.offset == 3
        live.close()


def test_the_asyncio_client_goes_through_a_slow_hop(server: Server, relay: Relay) -> None:
    import asyncio

    async def main() -> None:
        async with AsyncClient(relay.address) as client:
            await client.session("slow-aio").message("user", "hello")
            await client.flush()
            assert (await client.get_session("slow-aio")).head_offset == 2

    asyncio.run(main())


def test_the_cli_s_url_forms_name_a_server(server: Server) -> None:
    with Client(f"http://{server.address}") as client:
        client.session("url").message("user", "hello")
        client.flush()
        assert client.get_session("url").head_offset == 2
    with Client(f"http://{server.address}/") as client:
        assert client.get_session("url").head_offset == 2
