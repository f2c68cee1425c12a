"""A Python UI subscriber: prints a session rendered as Markdown.

    python subscriber.py --server 127.0.0.1:50051 --session py-demo [--count N]

It replays the session from its start, then follows it live; with --count it stops after that
many updates.
"""

import argparse

import grpc

from toolview_stubs import rendering_pb2, session_service_pb2, session_service_pb2_grpc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--session", default="py-demo")
    parser.add_argument("--count", type=int, default=0)
    a = parser.parse_args()
    with grpc.insecure_channel(a.server) as channel:
        stub = session_service_pb2_grpc.SessionServiceStub(channel)
        request = session_service_pb2.SubscribeRequest(
            session_id=a.session,
            target=rendering_pb2.TARGET_MARKDOWN,
            from_beginning=session_service_pb2.StartFromBeginning(),
        )
        seen = 0
        for item in stub.Subscribe(request):
            if not item.HasField("update"):
                continue
            seen += 1
            if item.update.markdown:
                print(f"--- offset {item.update.cursor.offset}")
                print(item.update.markdown, flush=True)
            if a.count and seen >= a.count:
                break


if __name__ == "__main__":
    main()
