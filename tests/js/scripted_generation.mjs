// The generation both AI SDK emitters run (`otel_ai_sdk.mjs`, the AI SDK 7 with `@ai-sdk/otel`;
// `otel_ai_sdk6.mjs`, the AI SDK 6 with its own spans): the mock model asks for two tools, then
// answers; each step uses one input and one output token.
export const prompt = "List and read.";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A mock model's `doGenerate`: the two tool calls, then the answer. */
export function doGenerate() {
  let step = 0;
  return async () => {
    step++;
    if (step === 1) {
      return {
        content: [
          { type: "tool-call", toolCallId: "c1", toolName: "bash", input: JSON.stringify({ command: "ls" }) },
          { type: "tool-call", toolCallId: "c2", toolName: "read_file", input: JSON.stringify({ path: "a.txt" }) },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    }
    return { content: [{ type: "text", text: "Done: two files." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
  };
}

/** The two tools, made with the SDK's own `tool` and `zod`. */
export function tools(tool, z) {
  return {
    bash: tool({ inputSchema: z.object({ command: z.string() }), execute: async () => "a.txt\nb.txt" }),
    read_file: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => "hello" }),
  };
}
