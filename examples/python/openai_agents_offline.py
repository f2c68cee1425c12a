"""An OpenAI Agents SDK run published to toolview, offline: a scripted model stands in for the
API (no key, no network), so the adapter can be tried, and watched, before any real run.

    pip install './clients/python[openai-agents]'
    python examples/python/openai_agents_offline.py --server 127.0.0.1:50051 --session agents-demo

The model asks for two tools under Claude Code's names (`Read`, shown as a read card, and
`Bash`, a terminal card), then answers; the turn ends with the run's usage. Watch it with
`toolview tail --session agents-demo --from-beginning` or the viewer. With a real model, drop
`ScriptedModel` and give the agent a model name: the hooks are the same.
"""

import argparse
import asyncio
import json
import os
from typing import Any, List

import agents
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from toolview.adapters.openai_agents import ToolviewRunHooks
from toolview.aio import AsyncClient

PROMPT = "Why do the tests fail?"


def call(call_id: str, name: str, arguments: dict) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call",
        id=f"fc_{call_id}",
        call_id=call_id,
        name=name,
        arguments=json.dumps(arguments),
        status="completed",
    )


def answer(text: str) -> ResponseOutputMessage:
    content = [ResponseOutputText(type="output_text", text=text, annotations=[])]
    return ResponseOutputMessage(
        type="message", id="msg_1", role="assistant", status="completed", content=content
    )


class ScriptedModel(agents.Model):
    """Replies in turn: the tool calls, then the answer."""

    def __init__(self) -> None:
        self.replies: List[List[Any]] = [
            [call("call_read_1", "Read", {"file_path": "/work/proj/src/app.ts"})],
            [call("call_bash_1", "Bash", {"command": "npm test", "description": "Run the tests"})],
            [answer("`src/app.ts` reads the port as a string; `Number(process.env.PORT)` fixes the test.")],
        ]

    async def get_response(self, *args: Any, **kwargs: Any) -> agents.ModelResponse:
        usage = agents.Usage(requests=1, input_tokens=120, output_tokens=30, total_tokens=150)
        return agents.ModelResponse(output=self.replies.pop(0), usage=usage, response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this example runs without streaming")


@agents.function_tool(name_override="Read")
def read(file_path: str) -> str:
    """Reads a file."""
    return "     1\texport const port = process.env.PORT ?? 8080\n"


@agents.function_tool(name_override="Bash")
def bash(command: str, description: str) -> str:
    """Runs a command."""
    return "FAIL src/app.test.ts > reads the port\nError: Process exited with code 2"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--session", default="agents-demo")
    parser.add_argument("--token", default=os.environ.get("TOOLVIEW_TOKEN"))
    a = parser.parse_args()
    agents.set_tracing_disabled(True)  # offline: no trace export to OpenAI
    agent = agents.Agent(
        name="coder", instructions="Fix the tests.", model=ScriptedModel(), tools=[read, bash]
    )
    async with AsyncClient(a.server, token=a.token) as client:
        hooks = ToolviewRunHooks(client.session(a.session))
        await hooks.prompt(PROMPT)
        result = await agents.Runner.run(agent, PROMPT, hooks=hooks)
    print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
