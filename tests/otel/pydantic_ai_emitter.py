"""A Pydantic AI agent with instrumentation on, exporting its spans over OTLP/HTTP to wherever
OTEL_EXPORTER_OTLP_ENDPOINT points (OTEL_EXPORTER_OTLP_HEADERS carries a token). The model is
Pydantic AI's own TestModel: it calls every tool once, then answers. No network beyond the
endpoint."""

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
Agent.instrument_all()

agent = Agent(TestModel(), name="files")


@agent.tool_plain
def bash(command: str) -> str:
    """Runs a shell command."""
    return "a.txt\nb.txt"


@agent.tool_plain
def read_file(path: str) -> str:
    """Reads a file."""
    return "hello"


agent.run_sync("List and read.")
provider.shutdown()
