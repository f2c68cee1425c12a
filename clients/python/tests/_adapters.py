"""What the adapter suites share: a session's cards and conversation as a UI sees them, the
check that a card is the one toolview's presenters give, and a scripted Chat Completions
endpoint."""

import itertools
import json
from typing import Any, Dict, List, Optional

from _server import Server

from toolview import Capabilities, Client


def final_cards(server: Server, session_id: str, events: int) -> Dict[str, Any]:
    """Each call's last card, from a VIEW subscription of the whole session by a UI that shows
    every card (so nothing is degraded)."""
    cards: Dict[str, Any] = {}
    every_card = Capabilities(terminal=True, diff=True, read=True, search=True, web=True)
    with Client(server.address) as client, client.subscribe(session_id, "view", every_card) as subscription:
        for update in itertools.islice(subscription, events):
            if update.view.WhichOneof("update") == "card":
                cards[update.call_id] = update.view.card
        assert subscription.cursor.offset == events
    return cards


def assert_presented(server: Server, card: Any, tool: str, args: Any, result: str, **kw: Any) -> None:
    with Client(server.address) as client:
        presented = client.present(tool, args, result, **kw)
    assert card.tool_name == tool
    assert card.call == presented.call, tool
    assert card.result == presented.result, tool


def conversation(server: Server, session_id: str, events: int) -> List[Any]:
    """The session's messages and turns, in order, from a VIEW subscription."""
    shown: List[Any] = []
    with Client(server.address) as client, client.subscribe(session_id, "view") as subscription:
        for update in itertools.islice(subscription, events):
            kind = update.view.WhichOneof("update")
            if kind == "message" and update.view.message.status == 2:  # complete
                shown.append(("message", update.view.message.role, update.view.message.text))
            elif kind == "turn" and update.view.turn.finished:
                usage = update.view.turn.usage
                shown.append(("turn", usage.input_tokens, usage.output_tokens))
    return shown


class FakeChatCompletions:
    """A local Chat Completions endpoint (what LiteLLM and other providers speak): ``replies``
    in turn (by default a tool call with some text, then the answer)."""

    def __init__(self, replies: Optional[List[Dict[str, Any]]] = None) -> None:
        import http.server
        import threading

        replies = replies or [
            {
                "content": "Let me read the file.",
                "tool_calls": [
                    {
                        "id": "call_read_1",
                        "type": "function",
                        "function": {"name": "read", "arguments": json.dumps({"file_path": "/work/app.ts"})},
                    }
                ],
            },
            {"content": "The port is read from PORT."},
        ]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                message = {"role": "assistant", **replies.pop(0)}
                body = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "gpt-test",
                        "choices": [
                            {
                                "index": 0,
                                "message": message,
                                "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/v1"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
