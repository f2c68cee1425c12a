// An AI SDK 6 `generateText` with its own telemetry on (`experimental_telemetry`, spans named
// `ai.generateText`, `ai.generateText.doGenerate`, `ai.toolCall`, before `@ai-sdk/otel`),
// exporting over OTLP/HTTP protobuf to wherever OTEL_EXPORTER_OTLP_ENDPOINT points. The model is
// the AI SDK 6 mock: it calls two tools, then answers. No network beyond the endpoint.
import { generateText, stepCountIs, tool } from "ai6";
import { MockLanguageModelV3 } from "ai6/test";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { z } from "zod";
import { doGenerate, prompt, tools } from "./scripted_generation.mjs";

const resource = detectResources({ detectors: [envDetector] });
const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register();

await generateText({
  model: new MockLanguageModelV3({ doGenerate: doGenerate() }),
  prompt,
  stopWhen: stepCountIs(3),
  tools: tools(tool, z),
  experimental_telemetry: { isEnabled: true },
});
// Flushes the batch: the spans are exported before the process ends.
await provider.shutdown();
process.stdout.write("", () => process.exit(0));
