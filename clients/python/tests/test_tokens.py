"""Tokens: a subscription whose token expires (the server ends its stream then) resumes with a
fresh one from a token function, losing nothing; a token refused outright is raised, not
retried."""

import base64
import hashlib
import hmac
import itertools
import json
import os
import tempfile
import time
from typing import Iterator

import pytest
from _server import Server

from toolview import Client
from toolview.errors import Unauthenticated

SECRET = "client-test-secret-0123456789abcdef0123456789"


def token(ttl: float) -> str:
    """An HS256 token for every session, expiring in ``ttl`` seconds."""

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = {
        "aud": "toolview",
        "sub": "client-test",
        "exp": int(time.time() + ttl),
        "toolview": {"grants": [{"rights": ["publish", "subscribe", "read"], "sessions": ["**"]}]},
    }
    body = b64(json.dumps(claims).encode())
    signature = hmac.new(SECRET.encode(), f"{header}.{body}".encode(), hashlib.sha256).digest()
    return f"{header}.{body}.{b64(signature)}"


@pytest.fixture
def jwt_server() -> Iterator[Server]:
    with tempfile.TemporaryDirectory() as data:
        secret = os.path.join(data, "secret")
        with open(secret, "w") as f:
            f.write(SECRET)
        server = Server(
            os.path.join(data, "db"), ["--auth", "jwt", "--jwt-secret-file", secret, "--jwt-leeway-secs", "0"]
        )
        server.start()
        try:
            yield server
        finally:
            server.stop()


def test_an_expired_token_is_replaced_and_the_subscription_resumes(jwt_server: Server) -> None:
    with (
        Client(jwt_server.address, token=token(3600)) as publisher,
        Client(jwt_server.address, token=lambda: token(2)) as reader,
    ):
        session = publisher.session("tokens")
        subscription = reader.subscribe("tokens", "view")
        for i in range(5):
            session.message("user", f"before {i}")
        publisher.flush()
        first = [item.cursor.offset for item in itertools.islice(subscription, 10)]
        time.sleep(3)  # past the reader's token: the server ends its stream
        for i in range(5):
            session.message("user", f"after {i}")
        publisher.flush()
        rest = [item.cursor.offset for item in itertools.islice(subscription, 10)]
        subscription.close()
    assert first + rest == list(range(1, 21))
    assert subscription.reconnects >= 1


def test_a_refused_token_is_raised(jwt_server: Server) -> None:
    with Client(jwt_server.address, token=token(-60)) as stale, pytest.raises(Unauthenticated):
        next(stale.subscribe("tokens", "view"))
    # A token function that only ever gives refused tokens: raised too, not retried forever.
    with Client(jwt_server.address, token=lambda: token(-60)) as hopeless, pytest.raises(Unauthenticated):
        next(hopeless.subscribe("tokens", "view"))


def test_a_static_token_that_expires_ends_the_subscription(jwt_server: Server) -> None:
    """What the token function above makes good: without it, expiry ends the subscription."""
    with (
        Client(jwt_server.address, token=token(3600)) as publisher,
        Client(jwt_server.address, token=token(2)) as reader,
    ):
        publisher.session("static").message("user", "hello")
        publisher.flush()
        subscription = reader.subscribe("static", "view")
        assert [item.cursor.offset for item in itertools.islice(subscription, 2)] == [1, 2]
        with pytest.raises(Unauthenticated):
            next(subscription)
