"""A Python agent harness publishing a realistic session to toolview.

    python harness.py --server 127.0.0.1:50051 --session py-demo [--token JWT] [--tls-ca ca.pem]

One turn of a conversation: the user's prompt, the agent's reasoning and its first words
(streamed in deltas), then the calls — it reads a file, edits it (with before/after meta so
toolview shows real hunks), runs a test command that streams output and fails with exit code 2,
greps, and fetches a page — then its answer and the turn's end with its token usage.
"""

import argparse
import json

from toolview_stubs import add_connection_args, connect, events_pb2, session_service_pb2, session_service_pb2_grpc, views_pb2


def text(t):
    return views_pb2.ContentBlock(text=views_pb2.TextContent(text=t))


class Harness:
    def __init__(self, stub, session, metadata):
        self.stub, self.session, self.metadata, self.n = stub, session, metadata, 0

    def publish(self, **event):
        self.n += 1
        ev = events_pb2.ToolEvent(session_id=self.session, event_id=f"py-{self.n}", **event)
        ack = self.stub.Publish(session_service_pb2.PublishRequest(events=[ev]), metadata=self.metadata).acks[0]
        print(f"acked {ack.event_id} at offset {ack.cursor.offset}")

    def message(self, message_id, role, *parts):
        """A message streamed as its first part, then deltas, then its end."""
        self.publish(message_started=events_pb2.MessageStarted(message_id=message_id, role=role, text=parts[0]))
        for part in parts[1:]:
            self.publish(message_delta=events_pb2.MessageDelta(message_id=message_id, text=part))
        self.publish(message_finished=events_pb2.MessageFinished(message_id=message_id))

    def start(self, call_id, tool, args):
        self.publish(call_started=events_pb2.ToolCallStarted(call_id=call_id, tool_name=tool, arguments_json=json.dumps(args)))

    def output(self, call_id, data):
        self.publish(call_output=events_pb2.ToolCallOutput(call_id=call_id, data=data))

    def finish(self, call_id, result, meta=None, is_error=False):
        self.publish(
            call_finished=events_pb2.ToolCallFinished(
                call_id=call_id, content=[text(result)], is_error=is_error, meta_json=json.dumps(meta) if meta else ""
            )
        )


def main():
    parser = argparse.ArgumentParser()
    add_connection_args(parser)
    parser.add_argument("--session", default="py-demo")
    a = parser.parse_args()
    channel, metadata = connect(a)
    with channel:
        h = Harness(session_service_pb2_grpc.SessionServiceStub(channel), a.session, metadata)
        h.publish(session_started=events_pb2.SessionStarted(cwd="/work/proj"))
        h.publish(turn_started=events_pb2.TurnStarted(turn_id="turn-1"))
        h.message("user-1", events_pb2.MESSAGE_ROLE_USER, "Make the port configurable and check the tests.")
        h.message("think-1", events_pb2.MESSAGE_ROLE_REASONING, "The port is hard-coded; ", "read it from PORT.")
        h.message("say-1", events_pb2.MESSAGE_ROLE_ASSISTANT, "I'll read the config ", "and run the tests.")

        lines = ["export const port = 8080", "// TODO: read from env"]
        h.start("read-1", "read", {"file_path": "/work/proj/src/app.ts"})
        body = "\n".join(f"{i}: {l}" for i, l in enumerate(lines, 1))
        h.finish(
            "read-1",
            f"<path>/work/proj/src/app.ts</path>\n<type>file</type>\n<content>\n{body}\n</content>",
            {"path": "/work/proj/src/app.ts", "offset": 1, "totalLines": 2, "lang": "ts",
             "lines": [{"number": i, "text": l} for i, l in enumerate(lines, 1)]},
        )

        before = "\n".join(lines) + "\n"
        after = before.replace("8080", "Number(process.env.PORT)")
        h.start("edit-1", "edit", {"file_path": "src/app.ts", "old_string": "8080", "new_string": "Number(process.env.PORT)"})
        h.finish("edit-1", "The file was updated.", {"before": before, "after": after})

        h.start("bash-1", "bash", {"command": "npm test", "description": "Run the tests"})
        h.output("bash-1", "> vitest run\n")
        h.output("bash-1", " FAIL  src/app.test.ts\n")
        h.finish("bash-1", "> vitest run\n FAIL  src/app.test.ts\nTests  1 failed\n[exit code: 2]")

        h.start("grep-1", "grep", {"pattern": "TODO", "path": "src"})
        h.finish("grep-1", "Found 1 match", {"shape": "matches", "truncated": False, "total": 1,
                 "files": [{"path": "src/app.ts", "matches": [{"lineNumber": 2, "line": "// TODO: read from env"}]}]})

        h.start("fetch-1", "web_fetch", {"url": "https://vitest.dev/guide/"})
        h.finish("fetch-1", "# Getting Started", {"url": "https://vitest.dev/guide/", "statusCode": 200, "truncated": False})

        h.message("say-2", events_pb2.MESSAGE_ROLE_ASSISTANT, "Done: the port comes from PORT; one test still fails.")
        usage = events_pb2.TokenUsage(input_tokens=1200, output_tokens=340, context_tokens=5400, context_window=200000)
        h.publish(turn_finished=events_pb2.TurnFinished(
            turn_id="turn-1", stop_reason=events_pb2.STOP_REASON_END_TURN, usage=usage))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        # Ctrl-C is how a subscriber is stopped: no traceback.
        raise SystemExit(130)
