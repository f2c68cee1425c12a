"""A LangGraph `create_react_agent` run, instrumented by OpenInference or by OpenLLMetry (the
first argument: `openinference` or `openllmetry`), exporting its spans over OTLP/HTTP, or
OTLP/gRPC with `grpc` as the second argument, to wherever OTEL_EXPORTER_OTLP_ENDPOINT points.
The chat model is LangChain's own fake, scripted: it asks for `bash`, then `read_file`, then
answers. No network beyond the endpoint."""

import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

instrumentation = sys.argv[1]
if sys.argv[2:] == ["grpc"]:
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
else:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
if instrumentation == "openinference":
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument(tracer_provider=provider)
else:
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor

    LangchainInstrumentor().instrument(tracer_provider=provider)

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.prebuilt import create_react_agent  # noqa: E402


class ScriptedModel(GenericFakeChatModel):
    """The fake chat model, taking tools as a real one does (it answers from its script)."""

    def bind_tools(self, tools, **kwargs):
        return self


@tool
def bash(command: str) -> str:
    """Runs a shell command."""
    return "a.txt\nb.txt"


@tool
def read_file(path: str) -> str:
    """Reads a file."""
    return "hello"


def asks(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


script = [
    asks("bash", {"command": "ls"}, "call_1"),
    asks("read_file", {"path": "a.txt"}, "call_2"),
    AIMessage(content="a.txt says hello"),
]
agent = create_react_agent(ScriptedModel(messages=iter(script)), [bash, read_file])
agent.invoke({"messages": [("user", "List and read.")]})
provider.shutdown()
