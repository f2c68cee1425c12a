"""A Pydantic AI agent whose tool runs another agent (`await expert.run(..., usage=ctx.usage)`,
the pattern Pydantic AI documents for delegation), instrumentation on, exporting over OTLP/HTTP
to wherever OTEL_EXPORTER_OTLP_ENDPOINT points. Each run names its own conversation
(`gen_ai.conversation.id`); toolview puts the expert's run in the outer run's session, under the
`ask_expert` call. Both models are Pydantic AI's TestModel: no network beyond the endpoint."""

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from pydantic_ai import Agent, RunContext
from pydantic_ai.models.test import TestModel

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
Agent.instrument_all()

expert = Agent(TestModel(), name="expert")
lead = Agent(TestModel(), name="lead")


@expert.tool_plain
def read_file(path: str) -> str:
    """Reads a file."""
    return "hello"


@lead.tool
async def ask_expert(ctx: RunContext[None], question: str) -> str:
    """Asks the expert agent."""
    result = await expert.run(question, usage=ctx.usage)
    return str(result.output)


lead.run_sync("Ask the expert.")
provider.shutdown()
