// Subscribes to a session (Markdown, from the beginning) until it has seen offset LAST; prints
// one JSON line per update, then the reconnect count.
import { isReset } from "@toolview/client";
import { connect } from "@toolview/client/node";

const [server, sessionId, last] = process.argv.slice(2);
const client = connect(server);
const subscription = await client.subscribe(sessionId, { target: "markdown" });
console.log("subscribed");
for await (const item of subscription) {
  if (isReset(item)) {
    console.log(JSON.stringify({ reset: item.epoch }));
    continue;
  }
  console.log(JSON.stringify({ offset: Number(item.cursor.offset), call: item.callId, md: item.body.value }));
  if (item.cursor.offset >= BigInt(last)) break;
}
console.log(`reconnects ${subscription.reconnects}`);
