"""A Python agent harness publishing a realistic session to toolview, with the `toolview`
package (pip install ./clients/python).

    python harness.py --server 127.0.0.1:50051 --session py-demo [--token JWT] [--tls-ca ca.pem]

One turn of a conversation: the user's prompt, the agent's reasoning and its first words
(streamed in deltas), then the calls — it reads a file, edits it (with before/after meta so
toolview shows real hunks), runs a test command that streams output and fails with exit code 2,
greps, and fetches a page — then its answer and the turn's end with its token usage.
"""

import argparse
import os

from toolview import Client, Usage


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--session", default="py-demo")
    parser.add_argument("--token", default=os.environ.get("TOOLVIEW_TOKEN"), help="a JWT for a server with --auth jwt")
    parser.add_argument("--tls-ca", default=os.environ.get("TOOLVIEW_TLS_CA"), help="the CA (PEM) of a TLS server")
    a = parser.parse_args()

    # Closing the client (the end of the `with`) flushes: every event is acknowledged.
    with Client(a.server, token=a.token, ca=a.tls_ca) as client:
        session = client.session(a.session)
        session.start(cwd="/work/proj")
        turn = session.start_turn("turn-1")
        session.message("user", "Make the port configurable and check the tests.", message_id="user-1")
        thought = session.start_message("reasoning", "The port is hard-coded; ", message_id="think-1")
        thought.append("read it from PORT.")
        thought.finish()
        say = session.start_message("assistant", "I'll read the config ", message_id="say-1")
        say.append("and run the tests.")
        say.finish()

        lines = ["export const port = 8080", "// TODO: read from env"]
        body = "\n".join(f"{i}: {l}" for i, l in enumerate(lines, 1))
        session.start_call("read", {"file_path": "/work/proj/src/app.ts"}, call_id="read-1").finish(
            f"<path>/work/proj/src/app.ts</path>\n<type>file</type>\n<content>\n{body}\n</content>",
            meta={"path": "/work/proj/src/app.ts", "offset": 1, "totalLines": 2, "lang": "ts",
                  "lines": [{"number": i, "text": l} for i, l in enumerate(lines, 1)]},
        )

        before = "\n".join(lines) + "\n"
        after = before.replace("8080", "Number(process.env.PORT)")
        edit = {"file_path": "src/app.ts", "old_string": "8080", "new_string": "Number(process.env.PORT)"}
        session.start_call("edit", edit, call_id="edit-1").finish(
            "The file was updated.", meta={"before": before, "after": after})

        tests = session.start_call("bash", {"command": "npm test", "description": "Run the tests"}, call_id="bash-1")
        tests.output("> vitest run\n")
        tests.output(" FAIL  src/app.test.ts\n")
        tests.finish("> vitest run\n FAIL  src/app.test.ts\nTests  1 failed\n[exit code: 2]")

        session.start_call("grep", {"pattern": "TODO", "path": "src"}, call_id="grep-1").finish(
            "Found 1 match",
            meta={"shape": "matches", "truncated": False, "total": 1,
                  "files": [{"path": "src/app.ts", "matches": [{"lineNumber": 2, "line": "// TODO: read from env"}]}]},
        )
        session.start_call("web_fetch", {"url": "https://vitest.dev/guide/"}, call_id="fetch-1").finish(
            "# Getting Started", meta={"url": "https://vitest.dev/guide/", "statusCode": 200, "truncated": False})

        session.message("assistant", "Done: the port comes from PORT; one test still fails.", message_id="say-2")
        turn.finish("end_turn", Usage(input_tokens=1200, output_tokens=340, context_tokens=5400, context_window=200000))
    # (A publish-only token may not read the session back: the client's count says it.)
    print(f"published {client.publisher.acknowledged} events")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130)
