"""A Python UI subscriber: prints a session rendered as Markdown, with the `toolview` package.

    python subscriber.py --server 127.0.0.1:50051 --session py-demo [--count N]
                         [--token JWT] [--tls-ca ca.pem]

It replays the session from its start, then follows it live — through server restarts: the
subscription resumes after the last update it printed. With --count it stops after that many
updates.
"""

import argparse
import itertools
import os
import sys

from toolview import Client, Reset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--session", default="py-demo")
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--token", default=os.environ.get("TOOLVIEW_TOKEN"), help="a JWT for a server with --auth jwt")
    parser.add_argument("--tls-ca", default=os.environ.get("TOOLVIEW_TLS_CA"), help="the CA (PEM) of a TLS server")
    a = parser.parse_args()
    with Client(a.server, token=a.token, ca=a.tls_ca) as client:
        subscription = client.subscribe(a.session, "markdown")
        for item in itertools.islice(subscription, a.count or None):
            if isinstance(item, Reset):
                print("--- reset: the session is shown again from its start")
            elif item.markdown:
                print(f"--- offset {item.cursor.offset}")
                print(item.markdown, flush=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        # Ctrl-C is how a subscriber is stopped: no traceback, and no wait for gRPC's threads.
        sys.stderr.write("stopped\n")
        os._exit(130)
