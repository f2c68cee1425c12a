"""One permission request shown on every surface at once, against a real server: a Claude Agent
SDK harness asks through ``can_use_tool`` (the SDK's own types, offline); the official ACP client
over ``toolview acp``, an ``@ag-ui/client`` ``HttpAgent`` with native interrupts and the viewer in
headless Chromium all show the prompt; the browser answers Reject; the harness gets a deny naming
the responder; the editor's prompt is withdrawn; the AG-UI run and an ``ai`` reader see the
decision; a second answer learns the winner; and the log replays the same bytes twice.

It drives the repository's own test clients (``tests/js``: the ACP, AG-UI, AI SDK and browser
scripts, installed by ``scripts/test.sh``), so it runs from a checkout, after them."""

import asyncio
import json
import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest
from _server import Server, binary

from toolview import Client
from toolview.aio import AsyncClient

ROOT = Path(__file__).resolve().parents[3]
JS = ROOT / "tests" / "js"
claude_agent_sdk = pytest.importorskip("claude_agent_sdk")
pytestmark = pytest.mark.skipif(
    not (JS / "node_modules" / "playwright-core").exists() or not Path("/usr/bin/chromium").exists(),
    reason="needs tests/js installed (scripts/test.sh) and Chromium",
)
SESSION = "everywhere"


class Node:
    """A test client script: its stderr lines as they come, its JSON report at the end."""

    def __init__(self, args: List[str], env: Dict[str, str]) -> None:
        self.process = subprocess.Popen(
            ["node", *args],
            cwd=JS,
            env={**os.environ, **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def wait_for(self, word: str, stdout: bool = False) -> None:
        stream = self.process.stdout if stdout else self.process.stderr
        assert stream is not None
        for line in stream:
            if word in line:
                return
        raise AssertionError(f"the client ended before {word!r}")

    def say(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def report(self) -> Any:
        out, err = self.process.communicate(timeout=60)
        assert self.process.returncode == 0, err
        return json.loads(out.strip().splitlines()[-1])


def replay(server: Server) -> List[bytes]:
    """Every VIEW update of the session from the beginning, as bytes."""
    with Client(server.address) as client:
        head = client.get_session(SESSION).head_offset
        out = []
        with client.subscribe(SESSION, "view") as updates:
            for update in updates:
                out.append(update.SerializeToString())
                if update.cursor.offset >= head:
                    return out
    return out


def test_one_request_on_every_surface(server: Server) -> None:
    from claude_agent_sdk import PermissionResultDeny, ToolPermissionContext

    from toolview.adapters.claude_agent_sdk import ToolviewHooks

    url = f"http://{server.address}"
    decided: List[Any] = []

    def harness() -> None:
        async def run() -> Any:
            async with AsyncClient(server.address) as client:
                hooks = ToolviewHooks(client.session(SESSION), permission_timeout=120)
                await hooks.user_prompt_submit({"prompt": "Clean the build."}, None, None)
                args = {"command": "rm -rf build", "description": "Clean"}
                call = {"tool_name": "Bash", "tool_input": args, "tool_use_id": "toolu_1"}
                await hooks.pre_tool_use(call, "toolu_1", None)
                answer = await hooks.can_use_tool("Bash", args, ToolPermissionContext(tool_use_id="toolu_1"))
                await hooks.post_tool_use_failure({**call, "error": answer.message}, "toolu_1", None)
                await hooks.stop({"last_assistant_message": "I did not clean it."}, None, None)
                # A last call the viewer waits for.
                done = await client.session(SESSION).start_call("job_list", {}, call_id="z1")
                await done.finish("nothing running")
                return answer

        decided.append(asyncio.run(run()))

    asking = threading.Thread(target=harness)
    asking.start()
    # The prompt is out: every surface joins.
    with Client(server.address) as client, client.subscribe(SESSION, "view") as updates:
        for update in updates:
            if update.view.WhichOneof("update") == "permission":
                request_id = update.request_id
                break
    editor = Node(
        ["acp_client.mjs", binary(), url, SESSION, "permission", "false", "1"],
        {"TOOLVIEW_ACP_ANSWER": "wait"},
    )
    editor.wait_for("asked")
    agui = Node(
        ["agui_client.mjs", "interrupt", f"{url}/ag-ui", SESSION, "cancelled"], {"TOOLVIEW_AGUI_WAIT": "1"}
    )
    agui.wait_for("paused")
    shot = Path(tempfile.mkdtemp()) / "viewer-everywhere.png"
    click = f'section.permission[data-request="{request_id}"] button[data-option="reject"]'
    viewer = Node(["viewer_browser.cjs", url, SESSION, str(shot), "z1"], {"CLICK": click})
    viewer.wait_for("ready", stdout=True)
    asking.join(timeout=60)
    viewer.say("published")
    [answer] = decided
    assert isinstance(answer, PermissionResultDeny)
    assert answer.message == "Rejected by someone via viewer"

    # The editor's prompt was withdrawn; the AG-UI run that resumes (abstaining) sees the decision.
    acp = editor.report()
    assert acp["asked"][0]["toolCall"]["toolCallId"] == "toolu_1"
    assert acp["withdrawn"] is True and acp["decision"]["state"] == "selected"
    agui.say("go")
    ag = agui.report()
    assert ag["pending"][0]["id"] == request_id
    shown = [m for m in ag["messages"] if m.get("activityType") == "toolview.permission"]
    assert shown and shown[-1]["content"]["state"] == "selected", ag
    page = viewer.report()
    assert page["permissions"][0]["state"] == "rejected"

    # An AI SDK reader of the session sees the approval answered: not approved, by the viewer.
    body = json.dumps({"id": SESSION, "messages": [], "toolview": {"follow": False}})
    sdk = subprocess.run(
        ["node", "ai_sdk_client.mjs", "post", f"{url}/ai-sdk", body], cwd=JS, capture_output=True, text=True
    )
    assert sdk.returncode == 0, sdk.stderr
    parts = json.loads(sdk.stdout)["message"]["parts"]
    tool = next(p for p in parts if p.get("toolCallId") == "toolu_1")
    assert tool["approval"]["approved"] is False and tool["approval"]["reason"] == "someone via viewer"

    # A second answer is told the winner; the log replays the same bytes twice.
    with Client(server.address) as client:
        won, winner = client.respond_permission(SESSION, request_id, "allow")
    assert not won and winner.option_id == "reject" and winner.via == "viewer"
    assert replay(server) == replay(server)
