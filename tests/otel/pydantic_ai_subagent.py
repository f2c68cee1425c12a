"""A Pydantic AI agent whose tool runs another agent (`await expert.run(..., usage=ctx.usage)`,
the pattern Pydantic AI documents for delegation), instrumentation on, exporting over OTLP/HTTP
to wherever OTEL_EXPORTER_OTLP_ENDPOINT points. Each run names its own conversation
(`gen_ai.conversation.id`); toolview puts the expert's run in the outer run's session, under the
`ask_expert` call. Both models are Pydantic AI's TestModel: no network beyond the endpoint.

With `batched`, the SDK's batching is left to work as it does in a long run: exports every 200 ms
and a tool that takes a second after its subagent, so the expert's spans (and the lead's first
model call) leave in an export before the `ask_expert` span and the lead's run. It prints how
many exports there were."""

import asyncio
import sys

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from pydantic_ai import Agent, RunContext
from pydantic_ai.models.test import TestModel

BATCHED = sys.argv[1:] == ["batched"]


class CountingExporter(OTLPSpanExporter):
    """The SDK's exporter, counting its exports."""

    exports = 0

    def export(self, spans):
        CountingExporter.exports += 1
        return super().export(spans)


provider = TracerProvider()
delay = 200 if BATCHED else 5000
provider.add_span_processor(BatchSpanProcessor(CountingExporter(), schedule_delay_millis=delay))
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
    if BATCHED:
        await asyncio.sleep(1.0)
    return str(result.output)


lead.run_sync("Ask the expert.")
provider.shutdown()
print(f"exports: {CountingExporter.exports}")
