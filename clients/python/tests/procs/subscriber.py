"""Subscribes to a session (Markdown, from the beginning) until it has seen offset LAST; prints
one line per update: offset, call id and the snapshot (JSON), then the reconnect count."""

import json
import sys

from toolview import Client, Reset

server, session_id, last = sys.argv[1], sys.argv[2], int(sys.argv[3])

with Client(server) as client:
    subscription = client.subscribe(session_id, "markdown")
    print("subscribed", flush=True)
    for item in subscription:
        if isinstance(item, Reset):
            print(json.dumps({"reset": item.epoch}), flush=True)
            continue
        print(
            json.dumps({"offset": item.cursor.offset, "call": item.call_id, "md": item.markdown}), flush=True
        )
        if item.cursor.offset >= last:
            break
    print(f"reconnects {subscription.reconnects}", flush=True)
