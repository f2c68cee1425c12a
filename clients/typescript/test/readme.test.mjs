// The README's publish example, run as it is against a real server: the cards it makes are the
// ones it says (a terminal card with its exit code, the answer, the turn's end).
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { connect } from "@toolview/client/node";
import { Server } from "./server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
// The checkout's README, or the installed package's (the tests also run from an install).
const README = [
  join(here, "..", "README.md"),
  join(here, "..", "node_modules", "@toolview", "client", "README.md"),
].find(existsSync);

let server;
before(async () => (server = await new Server().start()));
after(() => server.stop());

function example(section) {
  const text = readFileSync(README, "utf8");
  const block = /```ts[^\n]*\n([\s\S]*?)```/.exec(text.slice(text.indexOf(`## ${section}`)));
  assert.ok(block, `no ts block under ${section}`);
  return block[1];
}

test("the README's publish example gives the cards it says", async () => {
  const code = example("Publish");
  assert.ok(code.includes('"127.0.0.1:50051"'));
  // A module beside the tests, so its imports resolve as a user's would.
  const file = join(here, `readme-example-${process.pid}.mjs`);
  writeFileSync(file, code.replace("127.0.0.1:50051", server.address));
  try {
    await import(pathToFileURL(file).href);
  } finally {
    rmSync(file);
  }
  const client = connect(server.address);
  const { headOffset } = await client.getSession("my-session");
  const views = [];
  for await (const item of await client.subscribe("my-session", { capabilities: { terminal: true } })) {
    views.push(item.body.value.update);
    if (views.length === Number(headOffset)) break;
  }
  const card = views.filter((u) => u.case === "card").at(-1).value;
  assert.equal(card.call.card.case, "terminal");
  assert.equal(card.call.card.value.title, "npm test");
  assert.equal(card.result.card.case, "terminal");
  assert.deepEqual(card.result.card.value.exit, { case: "exitCode", value: 0 });
  assert.equal(card.result.card.value.output, "> vitest run\nTests 3 passed");
  const message = views.filter((u) => u.case === "message").at(-1).value;
  assert.equal(message.text, "All green.");
  const turn = views.filter((u) => u.case === "turn").at(-1).value;
  assert.ok(turn.finished);
  assert.equal(turn.usage.inputTokens, 1200n);
  await client.close();
});
