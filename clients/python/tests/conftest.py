"""The tests' fixtures: a real toolview server (`_server.Server`) per test that asks for one."""

from __future__ import annotations

import tempfile
from typing import Iterator

import pytest
from _server import Server


@pytest.fixture
def server() -> Iterator[Server]:
    with tempfile.TemporaryDirectory() as data:
        s = Server(data).start()
        try:
            yield s
        finally:
            s.stop()
