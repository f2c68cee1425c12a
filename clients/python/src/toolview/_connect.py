"""Channels to a server: in the clear or TLS, and the bearer token every call carries."""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple, Union

import grpc
import grpc.aio

#: A bearer token, or a function giving the current one (called for every call, so a token
#: that expires can be refreshed).
Token = Union[str, Callable[[], str], None]

#: Channel options: large enough for the server's largest message, and reconnection pauses
#: short enough that a restarted server is found again within about two seconds (gRPC's own
#: default backs off to two minutes). Not ``grpc.min_reconnect_backoff_ms``: gRPC also takes it
#: as the time a connection attempt may last, and a server whose first bytes take longer (a
#: distant proxy) would never be reached.
CHANNEL_OPTIONS: Sequence[Tuple[str, int]] = (
    ("grpc.max_receive_message_length", 4 << 20),
    ("grpc.max_send_message_length", 4 << 20),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
)


def target(server: str, tls: bool) -> Tuple[str, bool]:
    """``host:port`` and whether to use TLS, from ``server`` as the CLI takes it too: ``host:port``,
    ``http://host:port`` or ``https://host:port`` (TLS), a trailing ``/`` allowed."""
    for scheme, secure in (("http://", False), ("https://", True)):
        if server.startswith(scheme):
            return server[len(scheme) :].rstrip("/"), tls or secure
    return server, tls


def metadata(token: Token) -> Callable[[], List[Tuple[str, str]]]:
    """The metadata for one call."""

    def current() -> List[Tuple[str, str]]:
        value = token() if callable(token) else token
        return [("authorization", f"Bearer {value}")] if value else []

    return current


def _credentials(tls: bool, ca: Optional[Union[str, bytes]]) -> Optional[grpc.ChannelCredentials]:
    if ca is None and not tls:
        return None
    if isinstance(ca, str):
        with open(ca, "rb") as f:
            ca = f.read()
    return grpc.ssl_channel_credentials(root_certificates=ca)


def channel(
    server: str, tls: bool, ca: Optional[Union[str, bytes]], options: Sequence[Tuple[str, object]]
) -> grpc.Channel:
    opts = list(CHANNEL_OPTIONS) + list(options)
    server, tls = target(server, tls)
    creds = _credentials(tls, ca)
    return grpc.secure_channel(server, creds, opts) if creds else grpc.insecure_channel(server, opts)


def aio_channel(
    server: str, tls: bool, ca: Optional[Union[str, bytes]], options: Sequence[Tuple[str, object]]
) -> grpc.aio.Channel:
    opts = list(CHANNEL_OPTIONS) + list(options)
    server, tls = target(server, tls)
    creds = _credentials(tls, ca)
    return grpc.aio.secure_channel(server, creds, opts) if creds else grpc.aio.insecure_channel(server, opts)
