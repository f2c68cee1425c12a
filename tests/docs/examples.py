"""Runs the shell examples of the README and docs/ as written, and checks the rest are marked.

    python3 tests/docs/examples.py [--list] [FILE…]

Every fenced block of README.md, docs/*.md (docs/spec is the vendored spec; docs/producers.md's
examples are also run through the presenters by tests/spec/producers_doc.rs),
examples/*/README.md and clients/*/README.md is one of:

- a ``sh`` block: run with bash (``-e -o pipefail``) from the repository's root. Sections headed
  ``# terminal N: …`` run at once, as separate terminals: each but the last in the background
  (the next starts once a ``serve`` in it listens), the last to its end; the others are stopped
  then. A block whose commands run until stopped (a live ``tail``, a subscriber) says
  ``until=TEXT``: it is stopped, and passes, once its output shows TEXT.
- ``needs-server``: a ``toolview serve --store memory`` on 127.0.0.1:50051 runs during the
  block, with the sample session published as ``demo`` (the docs' "with the service running").
- ``output``: what the block before printed (JSON lines compared as JSON, else text).
- ``tested-by=PATH``: run by that test, which names the page or runs the block's command
  (checked here).
- ``excerpt``: not run — a fragment, or a command for what no test machine has (a registry, a
  Kubernetes cluster, systemd). JSON blocks that are not excerpts must parse.
- ``text``: a picture, not code.

The environment is the reader's, but for: ``toolview`` on PATH is the release build (as ``cargo
install`` puts it; ``cargo install`` itself reuses that build and installs into a scratch
folder), ``pip`` and ``python3`` are a fresh virtual environment's, ``nats-server`` is
tests/.venv's, and files the examples write in the checkout (``toolview-data``, ``secret``,
``.venv``, certificates) are removed afterwards unless they were there before. No
``TOOLVIEW_*`` variable is set: the fast loop's tests parse the environment as ``serve`` does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PORT = 50051
#: A block's commands may take this long (a release build included: the NATS block builds one).
BLOCK_TIMEOUT = 900.0
KINDS = {"excerpt", "output", "needs-server", "text"}


@dataclass
class Block:
    path: str
    line: int
    lang: str
    attrs: dict[str, str]
    body: str
    flags: set[str] = field(default_factory=set)

    def where(self) -> str:
        return f"{self.path}:{self.line}"


def pages() -> list[Path]:
    found = [ROOT / "README.md"]
    found += sorted((ROOT / "docs").glob("*.md"))
    found += sorted((ROOT / "examples").glob("*/README.md"))
    found += sorted((ROOT / "clients").glob("*/README.md"))
    return found


def blocks(page: Path) -> list[Block]:
    out = []
    text = page.read_text()
    for m in re.finditer(r"^```(\S+)([^\n]*)\n(.*?)^```", text, re.M | re.S):
        words = m.group(2).split()
        attrs = dict(w.split("=", 1) for w in words if "=" in w)
        flags = {w for w in words if "=" not in w}
        line = text[: m.start()].count("\n") + 1
        out.append(Block(str(page.relative_to(ROOT)), line, m.group(1), attrs, m.group(3), flags))
    return out


def check_marked(b: Block) -> str | None:
    """Why a block that is not run is not acceptable as it is marked, if so."""
    unknown = b.flags - KINDS
    if unknown:
        return f"unknown marks {sorted(unknown)}"
    if "tested-by" in b.attrs:
        test = ROOT / b.attrs["tested-by"]
        if not test.exists():
            return f"tested-by names {test.relative_to(ROOT)}, which does not exist"
        # The test runs the page's code (it names the page) or the block's command.
        first = b.body.strip().splitlines()[0]
        if not any(n in test.read_text() for n in (b.path, Path(b.path).name, first)):
            return f"{b.attrs['tested-by']} names neither {b.path} nor {first!r}"
        return None
    if b.lang == "text" or "excerpt" in b.flags or "output" in b.flags:
        return None
    if b.lang == "json":
        try:
            json.loads(b.body)
        except ValueError as e:
            return f"JSON that does not parse ({e}); mark it excerpt if it is a fragment"
        return None
    if b.lang == "sh":
        return None
    return f"a {b.lang} block that is neither run (tested-by=) nor marked excerpt"


class Processes:
    """Process groups started for a block, stopped at its end."""

    def __init__(self) -> None:
        self.groups: list[subprocess.Popen[bytes]] = []

    def start(self, script: str, env: dict[str, str], out: Path) -> subprocess.Popen[bytes]:
        p = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.groups.append(p)
        return p

    def stop(self) -> None:
        for p in self.groups:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        # Each whole group, not only its shell: a server the shell started may still be
        # shutting down (and holding its port) after the shell is gone.
        deadline = time.monotonic() + 10
        for p in self.groups:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            while group_alive(p.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if group_alive(p.pid):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        self.groups.clear()


def group_alive(pgid: int) -> bool:
    """Whether a process of group `pgid` is still running."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_until(what: str, ready, deadline: float, alive=lambda: True) -> None:
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        if not alive():
            raise AssertionError(f"ended before {what}")
        time.sleep(0.1)


def ports(terminal: str) -> list[int]:
    """What a background terminal serves, to wait for before the next starts: toolview on its
    ``--listen`` port (50051 unless given), ``http.server N`` on N."""
    found = [int(n) for n in re.findall(r"http\.server (\d+)", terminal)]
    if re.search(r"\bserve\b", terminal):
        listen = re.search(r"--listen \S+:(\d+)", terminal)
        found.append(int(listen.group(1)) if listen else PORT)
    return found


def terminals(body: str) -> list[str]:
    parts = re.split(r"^# terminal \d+:.*$", body, flags=re.M)
    return [p for p in parts[1:]] if len(parts) > 1 else [body]


def run_block(b: Block, env: dict[str, str], scratch: Path) -> str:
    """Runs one sh block; returns its output; raises AssertionError on a failure."""
    procs = Processes()
    deadline = time.monotonic() + BLOCK_TIMEOUT
    until = b.attrs.get("until")
    outs: list[Path] = []
    try:
        if "needs-server" in b.flags:
            fixture(procs, env, scratch, deadline)
        parts = terminals(b.body)
        for i, part in enumerate(parts):
            out = scratch / f"terminal-{len(outs)}.out"
            outs.append(out)
            p = procs.start(part, env, out)
            last = i == len(parts) - 1
            text = lambda: "".join(o.read_text(errors="replace") for o in outs)  # noqa: E731
            if not last:
                for port in ports(part):
                    wait_until(
                        f"a server on {port}", lambda: listening(port), deadline, lambda: p.poll() is None
                    )
                continue
            if until:
                # The commands before the one that follows must not fail (a failed script ends
                # early; what it started in the background would otherwise be waited on).
                alive = lambda: p.poll() in (None, 0)  # noqa: E731
                wait_until(f"{until!r} in the output", lambda: until in text(), deadline, alive)
            else:
                try:
                    p.wait(max(1.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    raise AssertionError("did not end (mark what runs until stopped with until=TEXT)")
                if p.returncode != 0:
                    raise AssertionError(f"exit status {p.returncode}")
        for p in procs.groups[("needs-server" in b.flags) :]:
            if p.poll() not in (None, 0):
                raise AssertionError(f"a terminal failed with exit status {p.returncode}")
        return "".join(o.read_text(errors="replace") for o in outs)
    except AssertionError as e:
        shown = "".join(o.read_text(errors="replace") for o in outs)[-4000:]
        raise AssertionError(f"{e}\n--- output:\n{shown}") from None
    finally:
        procs.stop()


def fixture(procs: Processes, env: dict[str, str], scratch: Path, deadline: float) -> None:
    if listening(PORT):
        raise AssertionError(f"127.0.0.1:{PORT} is taken: the examples need it free")
    p = procs.start(
        f"exec toolview serve --store memory --listen 127.0.0.1:{PORT}", env, scratch / "fixture.out"
    )
    wait_until("the fixture server", lambda: listening(PORT), deadline, lambda: p.poll() is None)
    subprocess.run(
        "toolview publish --session demo < examples/sample-session.jsonl >/dev/null",
        shell=True,
        cwd=ROOT,
        env=env,
        check=True,
    )


def same_output(expected: str, got: str) -> bool:
    """JSON compared as JSON (one document, or one per line), anything else line by line."""
    try:
        return json.loads(expected) == json.loads(got)
    except ValueError:
        pass
    want = [line for line in expected.splitlines() if line.strip()]
    have = [line for line in got.splitlines() if line.strip()]
    try:
        return [json.loads(x) for x in want] == [json.loads(x) for x in have]
    except ValueError:
        return want == have


def environment(scratch: Path) -> dict[str, str]:
    bin_dir = scratch / "bin"
    bin_dir.mkdir()
    (bin_dir / "toolview").symlink_to(ROOT / "target/release/toolview")
    nats = ROOT / "tests/.venv/bin/nats-server"
    if nats.exists():
        (bin_dir / "nats-server").symlink_to(nats)
    # A reader installs Python packages into a virtual environment (Debian's pip refuses the
    # system's): `pip` and `python3` are a fresh one's.
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}:{venv / 'bin'}:{env['PATH']}"
    # `cargo install` reuses the release build and installs into the scratch folder.
    env["CARGO_TARGET_DIR"] = str(ROOT / "target")
    env["CARGO_INSTALL_ROOT"] = str(scratch / "cargo")
    env.pop("TOOLVIEW_TOKEN", None)
    env.pop("TOOLVIEW_SERVER", None)
    return env


def untracked() -> set[str]:
    """New entries at the repository's root (where the examples write: ``secret``, certificates,
    ``.venv``, ``toolview-data``); files a person adds elsewhere meanwhile are never touched."""
    out = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=normal"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    entries = {line[3:] for line in out.splitlines() if line[:2] in ("??", "!!")}
    return {e for e in entries if "/" not in e.rstrip("/")}


def main(argv: list[str]) -> int:
    chosen = [ROOT / a for a in argv if not a.startswith("--")] or pages()
    all_blocks = [b for p in chosen for b in blocks(p)]
    problems = [f"{b.where()}: {why}" for b in all_blocks if (why := check_marked(b))]
    runnable = [
        b
        for b in all_blocks
        if b.lang == "sh" and not ({"excerpt", "output"} & b.flags) and "tested-by" not in b.attrs
    ]
    if "--list" in argv:
        for b in runnable:
            print(b.where())
        return 0
    if problems:
        print("\n".join(problems))
        return 1
    subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "toolview"], cwd=ROOT, check=True)
    before = untracked()
    try:
        failed = run_all(all_blocks, runnable)
    finally:
        for leftover in sorted(untracked() - before):
            path = ROOT / leftover
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    print(f"{len(runnable) - failed} of {len(runnable)} shell examples ran as written")
    return 1 if failed else 0


def run_all(all_blocks: list[Block], runnable: list[Block]) -> int:
    """Runs the blocks in order; returns how many failed."""
    failed = 0
    with tempfile.TemporaryDirectory(prefix="toolview-docs-") as tmp:
        env = environment(Path(tmp))
        previous_output = ""
        for b in all_blocks:
            if "output" in b.flags:
                if not same_output(b.body, previous_output):
                    failed += 1
                    print(f"FAIL {b.where()}: the block before printed\n{previous_output}", flush=True)
                continue
            if b not in runnable:
                continue
            scratch = Path(tempfile.mkdtemp(dir=tmp))
            started = time.monotonic()
            try:
                previous_output = run_block(b, env, scratch)
                print(f"ok   {b.where()} ({time.monotonic() - started:.1f} s)", flush=True)
            except AssertionError as e:
                failed += 1
                previous_output = ""
                print(f"FAIL {b.where()}: {e}", flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
