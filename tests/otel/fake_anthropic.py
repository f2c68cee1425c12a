"""A scripted Anthropic Messages API on loopback, for Claude Code run offline
(ANTHROPIC_BASE_URL): while the conversation has no tool result, a `Bash` call (`echo hello`);
then the answer. Streams as the API does (server-sent events) when asked to. Prints its port."""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALL = {"command": "echo hello", "description": "Say hello"}
ANSWER = "It said hello."
USAGE = {"input_tokens": 10, "output_tokens": 5}


def _events(body):
    messages = body.get("messages", [])
    last = messages[-1].get("content") if messages else None
    answered = isinstance(last, list) and any(p.get("type") == "tool_result" for p in last)
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": USAGE,
    }
    if not answered and any(t.get("name") == "Bash" for t in body.get("tools", [])):
        block = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(CALL)}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": ANSWER}
        stop = "end_turn"
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": USAGE},
        {"type": "message_stop"},
    ]


def _whole(events):
    """The events folded into one message, for a request that does not stream."""
    block = dict(events[1]["content_block"])
    delta = events[2]["delta"]
    if delta["type"] == "text_delta":
        block["text"] = delta["text"]
    else:
        block["input"] = json.loads(delta["partial_json"])
    return dict(events[0]["message"], content=[block], stop_reason=events[4]["delta"]["stop_reason"])


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if "count_tokens" in self.path:
            out, kind = json.dumps({"input_tokens": 10}).encode(), "application/json"
        elif body.get("stream"):
            events = _events(body)
            out = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
            kind = "text/event-stream"
        else:
            out, kind = json.dumps(_whole(_events(body))).encode(), "application/json"
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_GET(self):
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    print(server.server_port, flush=True)
    server.serve_forever()
