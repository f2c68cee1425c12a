"""A Python UI subscriber: prints a session rendered as Markdown.

    python subscriber.py --server 127.0.0.1:50051 --session py-demo [--count N]
                         [--token JWT] [--tls-ca ca.pem]

It replays the session from its start, then follows it live; with --count it stops after that
many updates.
"""

import argparse
import os
import sys

from toolview_stubs import add_connection_args, connect, rendering_pb2, session_service_pb2, session_service_pb2_grpc


def main():
    parser = argparse.ArgumentParser()
    add_connection_args(parser)
    parser.add_argument("--session", default="py-demo")
    parser.add_argument("--count", type=int, default=0)
    a = parser.parse_args()
    channel, metadata = connect(a)
    with channel:
        stub = session_service_pb2_grpc.SessionServiceStub(channel)
        request = session_service_pb2.SubscribeRequest(
            session_id=a.session,
            target=rendering_pb2.TARGET_MARKDOWN,
            from_beginning=session_service_pb2.StartFromBeginning(),
        )
        seen = 0
        for item in stub.Subscribe(request, metadata=metadata):
            if not item.HasField("update"):
                continue
            seen += 1
            if item.update.markdown:
                print(f"--- offset {item.update.cursor.offset}")
                print(item.update.markdown, flush=True)
            if a.count and seen >= a.count:
                break


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        # Ctrl-C is how a subscriber is stopped: no traceback, and no wait for gRPC's threads.
        sys.stderr.write("stopped\n")
        os._exit(130)
