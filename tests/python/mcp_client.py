"""The official Python MCP SDK (`mcp` 2.3) as a host connects, in its default mode (`auto`:
`server/discover` first, so the 2026-07-28 revision when the server speaks it), over the
service's `/mcp` or over `toolview mcp` on stdio:

    python mcp_client.py http SERVER_URL SESSION
    python mcp_client.py stdio SERVER_URL SESSION TOOLVIEW_BIN

Lists the tools and resources, reads the view, calls list_sessions and watch_session (its
result parsed by the SDK's own types), and prints {protocol, tools, resources, view, sessions,
watch} as JSON."""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


async def main() -> None:
    kind, server, session = sys.argv[1:4]
    target = f"{server}/mcp" if kind == "http" else StdioServerParameters(command=sys.argv[4], args=["mcp", "--server", server])
    async with Client(target) as client:
        tools = await client.list_tools()
        resources = await client.list_resources()
        view = await client.read_resource("ui://toolview/session")
        listed = await client.call_tool("list_sessions", {})
        watch = await client.call_tool("watch_session", {"session": session})
        report = {
            "protocol": client.protocol_version,
            "tools": [t.name for t in tools.tools],
            "resources": [str(r.uri) for r in resources.resources],
            "view": view.contents[0].mime_type,
            "sessions": listed.structured_content,
            "watch": {"isError": bool(watch.is_error), "text": watch.content[0].text[:200]},
        }
    print(json.dumps(report))


asyncio.run(main())
