"""A real toolview server for the tests: the binary named by TOOLVIEW_BIN (or the workspace's
debug build), on a free loopback port, with its own data directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent


def binary() -> str:
    path = os.environ.get("TOOLVIEW_BIN") or str(ROOT / "target" / "debug" / "toolview")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no toolview binary at {path}: build it (cargo build) or set TOOLVIEW_BIN")
    return path


class Server:
    """A toolview process; ``kill`` and ``start`` again keep its port and data."""

    def __init__(self, data_dir: str, extra: Optional[List[str]] = None) -> None:
        self.data_dir, self.extra = data_dir, extra or []
        self.address = "127.0.0.1:0"
        self.process: Optional[subprocess.Popen[str]] = None

    def start(self) -> "Server":
        args = [binary(), "serve", "--listen", self.address, "--data-dir", self.data_dir, *self.extra]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        if not line.startswith("toolview listening on "):
            self.process.kill()
            raise RuntimeError(f"toolview did not start: {line!r}")
        self.address = line.split()[-1]
        return self

    def kill(self) -> None:
        """SIGKILL: no goodbye to clients, no orderly store shutdown."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def python_process(script: str, *args: str) -> "subprocess.Popen[str]":
    """A helper script of tests/procs in a process of its own (the same interpreter)."""
    return subprocess.Popen(
        [sys.executable, str(HERE / "procs" / script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
