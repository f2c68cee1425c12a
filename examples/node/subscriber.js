// A Node.js UI subscriber: prints a session rendered as Markdown, with @toolview/client.
//
//   node subscriber.js --server 127.0.0.1:50051 --session node-demo [--count N] [--token JWT] [--tls-ca ca.pem]
//
// It replays the session, then follows it live — through server restarts: the subscription
// resumes after the last update it printed. With --count it stops after that many updates.
import { readFileSync } from "node:fs";
import { isReset } from "@toolview/client";
import { connect } from "@toolview/client/node";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const ca = arg("tls-ca", process.env.TOOLVIEW_TLS_CA);
const client = connect(arg("server", "127.0.0.1:50051"), {
  token: arg("token", process.env.TOOLVIEW_TOKEN),
  ca: ca ? readFileSync(ca) : undefined,
});
const count = Number(arg("count", "0"));
const subscription = await client.subscribe(arg("session", "node-demo"), { target: "markdown" });
let seen = 0;
for await (const item of subscription) {
  if (isReset(item)) console.log("--- reset: the session is shown again from its start");
  else if (item.body.value) console.log(`--- offset ${item.cursor.offset}\n${item.body.value}`);
  if (count && ++seen >= count) break;
}
