// A type-level test of the package's public declarations (`dist/*.d.ts`, through the package's
// own name and `exports`): what a harness author writes compiles, and misuse does not. Checked by
// `npm run typecheck` (`tsc --noEmit`), never run.
import {
  type Call,
  type Client,
  type fieldViolation,
  type Item,
  isReset,
  type Session,
  type Subscription,
  ToolviewError,
} from "@toolview/client";
import { type ToolviewTelemetry, toolviewTelemetry } from "@toolview/client/ai-sdk";
import { connect } from "@toolview/client/node";
import { connect as connectWeb } from "@toolview/client/web";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_: T): void {}

export async function harness(): Promise<void> {
  const client: Client = connect("127.0.0.1:50051", { token: () => "jwt" });
  const session: Session = client.session("s1");
  await session.start("/work");
  const call: Call = await session.startCall("bash", { command: "npm test" }, { callId: "c1" });
  await call.output("ok\n");
  await call.finish("1 passed", { isError: false, meta: { exit_code: 0 } });
  const turn = await session.startTurn();
  await turn.finish("end_turn", { inputTokens: 10n });
  // @ts-expect-error: a stop reason is one of the five
  await turn.finish("done");
  // @ts-expect-error: a role is user, assistant or reasoning
  await session.startMessage("system", "hi");
  await client.flush(1_000);
  await client.close();
}

export async function ui(): Promise<void> {
  const client = connectWeb("https://toolview.example");
  const subscription: Subscription = await client.subscribe("s1", { target: "ag_ui", start: "live" });
  for await (const item of subscription) {
    expectType<Equal<typeof item, Item>>(true);
    if (isReset(item)) continue;
    const offset: bigint | undefined = item.cursor?.offset;
    void offset;
  }
  // @ts-expect-error: targets are named
  await client.subscribe("s1", { target: "html" });
}

export function refusal(e: unknown): string | undefined {
  const error = ToolviewError.from(e);
  const index: number | undefined = error.eventIndex;
  void index;
  return error.field;
}

expectType<Equal<ReturnType<typeof fieldViolation>, string | undefined>>(true);

export function liveCards(session: Session): ToolviewTelemetry {
  // What `registerTelemetry` takes: the callbacks, each of one event.
  const telemetry = toolviewTelemetry(session);
  telemetry.onToolExecutionStart({ toolCall: { toolCallId: "c1", toolName: "bash", input: {} } });
  // @ts-expect-error: it publishes into a session, not a client
  toolviewTelemetry("s1");
  return telemetry;
}
