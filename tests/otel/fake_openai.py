"""A scripted Chat Completions endpoint on loopback: two tool calls, then (once the request
carries their results) an answer."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _completion(body):
    if not any(m.get("role") == "tool" for m in body["messages"]):
        calls = [
            ("call_1", "bash", {"command": "ls"}),
            ("call_2", "read_file", {"path": "a.txt"}),
        ]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, n, a in calls
            ],
        }
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": "Done: two files."}, "stop"
    return {
        "id": "scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        out = json.dumps(_completion(body)).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def serve():
    """The endpoint on a free loopback port, served from a daemon thread."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
