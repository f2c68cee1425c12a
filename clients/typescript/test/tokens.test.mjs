// Tokens: a subscription whose token expires (the server ends its stream then) resumes with a
// fresh one from a token function, losing nothing; without one, expiry ends it; a token refused
// outright is raised, not retried.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Code } from "@connectrpc/connect";
import { connect } from "@toolview/client/node";
import { Server } from "./server.mjs";

const SECRET = "client-test-secret-0123456789abcdef0123456789";

/** An HS256 token for every session, expiring in `ttl` seconds. */
function token(ttl) {
  const b64 = (data) => Buffer.from(data).toString("base64url");
  const header = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const claims = {
    aud: "toolview",
    sub: "client-test",
    exp: Math.floor(Date.now() / 1000 + ttl),
    toolview: { grants: [{ rights: ["publish", "subscribe", "read"], sessions: ["**"] }] },
  };
  const body = b64(JSON.stringify(claims));
  const signature = createHmac("sha256", SECRET).update(`${header}.${body}`).digest("base64url");
  return `${header}.${body}.${signature}`;
}

let server;
before(async () => {
  server = await new Server((dir) => {
    writeFileSync(join(dir, "secret"), SECRET);
    return ["--auth", "jwt", "--jwt-secret-file", join(dir, "secret"), "--jwt-leeway-secs", "0"];
  }).start();
});
after(() => server.stop());

async function take(iterator, n) {
  const items = [];
  while (items.length < n) {
    const { value, done } = await iterator.next();
    assert.ok(!done);
    items.push(value);
  }
  return items;
}

test("an expired token is replaced and the subscription resumes", async () => {
  const publisher = connect(server.address, { token: token(3600) });
  const reader = connect(server.address, { token: () => token(2) });
  const session = publisher.session("tokens");
  const subscription = await reader.subscribe("tokens");
  const items = subscription[Symbol.asyncIterator]();
  for (let i = 0; i < 5; i++) await session.message("user", `before ${i}`);
  await publisher.flush();
  const first = await take(items, 10);
  await new Promise((r) => setTimeout(r, 3000)); // past the reader's token
  for (let i = 0; i < 5; i++) await session.message("user", `after ${i}`);
  await publisher.flush();
  const rest = await take(items, 10);
  subscription.close();
  assert.deepEqual(
    [...first, ...rest].map((u) => Number(u.cursor.offset)),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  assert.ok(subscription.reconnects >= 1);
  await publisher.close();
});

test("a static token that expires ends the subscription", async () => {
  const publisher = connect(server.address, { token: token(3600) });
  await publisher.session("static").message("user", "hello");
  await publisher.close();
  const reader = connect(server.address, { token: token(2) });
  const items = (await reader.subscribe("static"))[Symbol.asyncIterator]();
  await take(items, 2);
  await assert.rejects(items.next(), (e) => e.code === Code.Unauthenticated);
});

test("a refused token is raised, not retried", async () => {
  for (const stale of [token(-60), () => token(-60)]) {
    const client = connect(server.address, { token: stale });
    const items = (await client.subscribe("tokens"))[Symbol.asyncIterator]();
    await assert.rejects(items.next(), (e) => e.code === Code.Unauthenticated);
  }
});
