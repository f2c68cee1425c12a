// The AI SDK telemetry integration, driven by the AI SDK itself offline (its mock model calls a
// tool that sleeps 2 s, then answers): a subscriber sees the call running before the tool
// returns, then the whole turn — the prompt, the finished call, the answer, the usage.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { CallStatus, isReset } from "@toolview/client";
import { toolviewTelemetry } from "@toolview/client/ai-sdk";
import { connect } from "@toolview/client/node";
import { generateText, isStepCount, registerTelemetry, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { Server } from "./server.mjs";

let server;
before(async () => (server = await new Server().start()));
after(() => server.stop());

const usage = {
  inputTokens: { total: 7, noCache: 7, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 3, text: 3, reasoning: 0 },
};

/** Calls `bash` once, then answers. */
function scriptedModel() {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      step += 1;
      const content =
        step === 1
          ? [
              {
                type: "tool-call",
                toolCallId: "call_sleep_1",
                toolName: "bash",
                input: JSON.stringify({ command: "sleep 2" }),
              },
            ]
          : [{ type: "text", text: "Slept." }];
      const finishReason = { unified: step === 1 ? "tool-calls" : "stop", raw: undefined };
      return { content, finishReason, usage, warnings: [] };
    },
  });
}

test("a tool that sleeps 2 s shows as running in a subscriber before it returns", async () => {
  const client = connect(server.address);
  const session = "ai-sdk-live";
  const telemetry = toolviewTelemetry(client.session(session));
  registerTelemetry(telemetry);

  // A subscriber following live: when did it see the call running, when finished?
  let seenRunning;
  let seenFinished;
  const cards = new Map();
  const said = [];
  let turnUsage;
  const watching = (async () => {
    for await (const item of await client.subscribe(session)) {
      assert.ok(!isReset(item));
      const update = item.body.value.update;
      if (update.case === "card") {
        cards.set(item.callId, update.value);
        if (update.value.status === CallStatus.IN_PROGRESS) seenRunning ??= Date.now();
        if (update.value.status === CallStatus.COMPLETED) seenFinished ??= Date.now();
      }
      if (update.case === "message" && update.value.status === 2) said.push(update.value.text);
      if (update.case === "turn" && update.value.finished) {
        turnUsage = update.value.usage;
        return;
      }
    }
  })();

  let returned;
  const result = await generateText({
    model: scriptedModel(),
    prompt: "Sleep a little.",
    stopWhen: isStepCount(3),
    tools: {
      bash: tool({
        inputSchema: z.object({ command: z.string() }),
        execute: async () => {
          await new Promise((resolve) => setTimeout(resolve, 2000));
          returned = Date.now();
          return "done sleeping";
        },
      }),
    },
    experimental_telemetry: { isEnabled: true },
  });
  await telemetry.settled();
  await client.flush();
  await watching;
  client.close();

  assert.equal(result.text, "Slept.");
  assert.ok(seenRunning !== undefined && seenRunning < returned, `running at ${seenRunning}, returned at ${returned}`);
  assert.ok(seenFinished >= returned);
  const card = cards.get("call_sleep_1");
  assert.equal(card.toolName, "bash");
  assert.equal(card.status, CallStatus.COMPLETED);
  assert.deepEqual(said, ["Sleep a little.", "Slept."]);
  assert.equal(turnUsage.inputTokens, 14n);
  assert.equal(turnUsage.outputTokens, 6n);
});
