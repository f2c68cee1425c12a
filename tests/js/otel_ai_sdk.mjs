// An AI SDK 7 `generateText` with telemetry on (`@ai-sdk/otel`), exporting its spans over
// OTLP to wherever OTEL_EXPORTER_OTLP_ENDPOINT points, as any app does (OTEL_EXPORTER_OTLP_PROTOCOL
// picks http/protobuf, http/json or grpc; OTEL_EXPORTER_OTLP_HEADERS carries a token). The model
// is the AI SDK's own mock: it calls two tools, then answers. No network beyond the endpoint.
import { generateText, tool, registerTelemetry, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { OpenTelemetry } from "@ai-sdk/otel";
import { NodeTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { OTLPTraceExporter as Proto } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as Json } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as Grpc } from "@opentelemetry/exporter-trace-otlp-grpc";
import { detectResources, envDetector } from "@opentelemetry/resources";
import { z } from "zod";
import { doGenerate, prompt, tools } from "./scripted_generation.mjs";

const Exporter = { "http/json": Json, grpc: Grpc }[process.env.OTEL_EXPORTER_OTLP_PROTOCOL] ?? Proto;
// The resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, as the Node SDK makes it.
const resource = detectResources({ detectors: [envDetector] });
const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new Exporter())] });
provider.register();
registerTelemetry(new OpenTelemetry());

await generateText({
  model: new MockLanguageModelV4({ doGenerate: doGenerate() }),
  prompt,
  stopWhen: isStepCount(3),
  tools: tools(tool, z),
  experimental_telemetry: { isEnabled: true },
});
// Flushes the batch: the spans are exported before the process ends.
await provider.shutdown();
process.stdout.write("", () => process.exit(0));
