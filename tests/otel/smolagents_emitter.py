"""A smolagents run with a managed agent, traced by OpenInference, exporting over OTLP/HTTP to
wherever OTEL_EXPORTER_OTLP_ENDPOINT points. The model is smolagents' OpenAIServerModel against
a scripted Chat Completions endpoint on loopback, answering the requests in the order the run
makes them: the lead delegates to `weather_helper`, which calls `get_weather`, then
`final_answer`; the lead then gives its `final_answer`. No network beyond loopback."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
from openinference.instrumentation.smolagents import SmolagentsInstrumentor  # noqa: E402

SmolagentsInstrumentor().instrument(tracer_provider=provider)
from smolagents import OpenAIServerModel, ToolCallingAgent, tool  # noqa: E402

SCRIPT = [
    ("weather_helper", {"task": "What is the weather in Lisbon? Answer in one line.", "additional_args": {}}),
    ("get_weather", {"city": "Lisbon"}),
    ("final_answer", {"answer": "Lisbon is sunny."}),
    ("final_answer", {"answer": "It is sunny in Lisbon."}),
]


class Scripted(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["content-length"]))
        name, args = SCRIPT.pop(0)
        call = {"id": f"call_{len(SCRIPT)}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        body = {
            "id": "scripted",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
        out = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


endpoint = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
threading.Thread(target=endpoint.serve_forever, daemon=True).start()
model = OpenAIServerModel(model_id="scripted", api_base=f"http://127.0.0.1:{endpoint.server_port}/v1", api_key="offline")


@tool
def get_weather(city: str) -> str:
    """Gets the weather in a city.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


helper = ToolCallingAgent(tools=[get_weather], model=model, name="weather_helper", description="Finds the weather.", max_steps=3, verbosity_level=0)
lead = ToolCallingAgent(tools=[], managed_agents=[helper], model=model, max_steps=3, verbosity_level=0)
lead.run("How is the weather in Lisbon?")
provider.shutdown()
