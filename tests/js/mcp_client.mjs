// The official MCP SDK client (@modelcontextprotocol/sdk) over `toolview mcp` on stdio, as a
// host with MCP Apps connects (it announces the UI extension), for tests/interop/mcp_server.rs.
//
//   node mcp_client.mjs TOOLVIEW_BIN SERVER_URL SESSION OTHER_SESSION [TRANSPORT]
//       (TOOLVIEW_TOKEN in the environment). TRANSPORT is `stdio` (`toolview mcp`, the default)
//       or `http` (the service's own `/mcp`, the token as the bearer). Lists the tools and
//       resources, reads the view and
//       checks the tools' and the resource's `_meta.ui` against @modelcontextprotocol/ext-apps'
//       own schemas; calls list_sessions, watch_session SESSION, then poll_session after its
//       cursor — "polling" goes to stderr, and the test publishes while the poll waits — and
//       poll_session OTHER_SESSION (which the token may not read).
//
// Prints {tools, resources, view, list, watch, poll, other} as JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpUiResourceMetaSchema, McpUiToolMetaSchema, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps";

const [bin, server, session, other, kind = "stdio"] = process.argv.slice(2);
const transport =
  kind === "http"
    ? new StreamableHTTPClientTransport(new URL(`${server}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${process.env.TOOLVIEW_TOKEN}` } },
      })
    : new StdioClientTransport({ command: bin, args: ["mcp", "--server", server], env: { ...process.env }, stderr: "inherit" });
const client = new Client(
  { name: "toolview-test-host", version: "1.0.0" },
  { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
);
await client.connect(transport);

const { tools } = await client.listTools();
for (const tool of tools) {
  if (tool._meta?.ui) McpUiToolMetaSchema.parse(tool._meta.ui);
}
const { resources } = await client.listResources();
const read = await client.readResource({ uri: "ui://toolview/session" });
const [content] = read.contents;
McpUiResourceMetaSchema.parse(content._meta.ui);

const list = await client.callTool({ name: "list_sessions", arguments: {} });
const watch = await client.callTool({ name: "watch_session", arguments: { session } });
process.stderr.write("polling\n");
const poll = await client.callTool({
  name: "poll_session",
  arguments: { session, after: watch.structuredContent.cursor, waitMs: 10000 },
});
const refused = await client.callTool({ name: "poll_session", arguments: { session: other } });

const report = {
  tools: tools.map((t) => ({ name: t.name, ui: t._meta?.ui ?? null, legacy: t._meta?.["ui/resourceUri"] ?? null })),
  resources: resources.map((r) => ({ uri: r.uri, mimeType: r.mimeType })),
  view: { mimeType: content.mimeType, bytes: content.text.length, ui: content._meta.ui, html: content.text.slice(0, 200) },
  list: list.structuredContent,
  watch: { text: watch.content[0].text, structured: watch.structuredContent },
  poll: poll.structuredContent,
  other: { isError: refused.isError ?? false, text: refused.content[0].text },
};
await client.close();
process.stdout.write(JSON.stringify(report), () => process.exit(0));
