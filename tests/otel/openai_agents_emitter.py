"""An OpenAI Agents run traced by the OpenInference instrumentation, exporting its spans over
OTLP/gRPC to wherever OTEL_EXPORTER_OTLP_ENDPOINT points. The model is the SDK's Chat
Completions model against a scripted endpoint on loopback (`fake_openai.py`): two tool calls,
then an answer. No network beyond loopback."""

import asyncio
import sys
from pathlib import Path

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_trace_processors
from openai import AsyncOpenAI
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import serve  # noqa: E402

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(insecure=True)))
trace.set_tracer_provider(provider)
# OpenInference's processor alone: the SDK's own exporter (to OpenAI's servers) is off.
set_trace_processors([])
OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)


@function_tool
def bash(command: str) -> str:
    """Runs a shell command."""
    return "a.txt\nb.txt"


@function_tool
def read_file(path: str) -> str:
    """Reads a file."""
    return "hello"


server = serve()
client = AsyncOpenAI(base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="offline")
model = OpenAIChatCompletionsModel(model="scripted", openai_client=client)
agent = Agent(name="files", model=model, tools=[bash, read_file])
asyncio.run(Runner.run(agent, "List and read."))
provider.shutdown()
server.shutdown()
