"""Publishes CALLS calls (start, two output chunks, finish: 4 events each) to a session, paced so
that a server restart lands mid-way; prints "acked N" as it goes, then its retry counts."""

import sys
import time

from toolview import Client

server, session_id, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])

with Client(server) as client:
    session = client.session(session_id)
    for i in range(calls):
        call = session.start_call("bash", {"command": f"echo {i}"}, call_id=f"c{i}")
        call.output(f"line {i}.1\n")
        call.output(f"line {i}.2\n")
        call.finish(f"line {i}.1\nline {i}.2\n", meta={"exitCode": 0})
        if i % 25 == 24:
            # Only to tell the test how far it got; the client batches on its own.
            client.flush()
            print(f"acked {4 * (i + 1)}", flush=True)
        time.sleep(0.004)
print(f"retries {client.publisher.retries} duplicates {client.publisher.duplicates}", flush=True)
