// The MCP TypeScript SDK's v2 client (`@modelcontextprotocol/client` 2.4) with version
// negotiation `auto` (discovery first, so the 2026-07-28 revision when the server speaks it), over
// the service's `/mcp`, for tests/interop/mcp_server.rs:
//
//   node mcp_v2_client.mjs SERVER_URL SESSION
//
// Lists the tools and resources, reads the view, calls watch_session (each result checked by the
// SDK's own schemas), and prints {protocol, tools, resources, view, watch} as JSON.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [server, session] = process.argv.slice(2);
const client = new Client({ name: "toolview-test-v2", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
await client.connect(new StreamableHTTPClientTransport(new URL(`${server}/mcp`)));
const tools = await client.listTools();
const resources = await client.listResources();
const read = await client.readResource({ uri: "ui://toolview/session" });
const watch = await client.callTool({ name: "watch_session", arguments: { session } });
const report = {
  protocol: client.getNegotiatedProtocolVersion(),
  tools: tools.tools.map((t) => t.name),
  resources: resources.resources.map((r) => r.uri),
  view: read.contents[0].mimeType,
  watch: { isError: watch.isError ?? false, text: watch.content[0].text.slice(0, 200) },
};
await client.close();
process.stdout.write(JSON.stringify(report), () => process.exit(0));
