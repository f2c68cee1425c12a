"""A webhook receiver for the tests: verifies each delivery's signature with the Standard
Webhooks library (standardwebhooks, as a receiver would), and writes one JSON line per arrival
to a file: {"path", "id", "mode", "headers" (webhook-*), "raw", "verified", "error"?, "body"}.

Usage: webhook_receiver.py PORT SECRET LOG

POST /control {"mode": "ok" | "fail" | "hold"} sets how deliveries are answered: "ok" 204,
"fail" 503, "hold" waits HOLD_SECONDS before a 204 (a sender's attempt in flight). Paths under
/slack are not verified (a Slack incoming webhook is not signed).
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook

HOLD_SECONDS = 30

port, secret, log_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
verifier = Webhook(secret)
state = {"mode": "ok"}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status):
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/control":
            state["mode"] = json.loads(body)["mode"]
            return self.answer(204)
        mode = state["mode"]
        entry = {"path": self.path, "id": self.headers.get("webhook-id"), "mode": mode}
        entry["headers"] = {
            k.lower(): v for k, v in self.headers.items() if k.lower().startswith("webhook-")
        }
        entry["raw"] = body.decode()
        if self.path.startswith("/slack"):
            entry["verified"] = False
        else:
            try:
                verifier.verify(body, {k.lower(): v for k, v in self.headers.items()})
                entry["verified"] = True
            except Exception as e:  # the library's WebhookVerificationError and bad headers
                entry["verified"] = False
                entry["error"] = str(e)
        entry["body"] = json.loads(body)
        with lock, open(log_path, "a") as log:
            log.write(json.dumps(entry) + "\n")
        if mode == "fail":
            return self.answer(503)
        if mode == "hold":
            time.sleep(HOLD_SECONDS)
        self.answer(204)


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
print("listening", server.server_address[1], flush=True)
server.serve_forever()
