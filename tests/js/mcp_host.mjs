// A host that runs MCP Apps, for tests/interop/mcp_server.rs: a page in headless Chromium with
// @modelcontextprotocol/ext-apps' host-side bridge (AppBridge), talking to `toolview mcp` through
// the official MCP SDK client (stdio, here in node; the page's tool calls come through
// Playwright). As a host does: it lists the tools, reads the watch tool's view resource, calls
// the watch tool, and loads the view in a sandboxed iframe (`allow-scripts` only) whose content
// security policy is made from the resource's `_meta.ui.csp` (no origin named: none reachable);
// the bridge gives the view the tool's input and result and answers its calls of the app-only
// tools (the poll, and a person's answer to a permission prompt, clicked in the view). Once, it
// fails a poll, as a host that suspended the view does: the view asks again after its cursor.
//
//   node mcp_host.mjs TOOLVIEW_BIN SERVER_URL SESSION SCREENSHOT
//       "shown" goes to stderr once the view shows the session's cards; then, on a stdin line with a call
//       id, it reports how long that call's card took to appear in the view.
//
// Then it clicks a link in a card (the view must ask the host to open it: `ui/open-link`) and
// tears the view down (`ui/resource-teardown`, answered `{}`).
//
// Prints {cards, late, lateMs, violations, csp, pollCalls, html, openedLinks, teardown} as JSON.
import { spawnSync } from "node:child_process";
import { dirname } from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { build } from "esbuild";
import { chromium } from "playwright-core";

const [bin, server, session, screenshot] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));

// The host page's script: the bridge, started with the view's document and the tool's call.
const HOST = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
window.startHost = async ({ html, input, result }) => {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.width = "900px";
  iframe.style.height = "1400px";
  iframe.srcdoc = html;
  document.body.append(iframe);
  await new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
  const bridge = new AppBridge(null, { name: "toolview-test-host", version: "1.0.0" }, { serverTools: {}, openLinks: {} });
  bridge.oncalltool = (params) => window.hostCallTool(params);
  bridge.onopenlink = async (params) => {
    await window.hostOpenLink(params.url);
    return {};
  };
  window.bridge = bridge;
  const ready = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  await ready;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
};`;
const hostScript = (
  await build({ stdin: { contents: HOST, resolveDir: here, loader: "js" }, bundle: true, format: "iife", write: false, logLevel: "warning" })
).outputFiles[0].text;

const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--server", server], env: { ...process.env }, stderr: "inherit" });
const client = new Client(
  { name: "toolview-test-host", version: "1.0.0" },
  { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } },
);
await client.connect(transport);
const { tools } = await client.listTools();
const watch = tools.find((t) => t.name === "watch_session");
const [resource] = (await client.readResource({ uri: watch._meta.ui.resourceUri })).contents;

// The policy a host makes of `_meta.ui.csp`: the declared origins, nothing else.
const csp = resource._meta?.ui?.csp ?? {};
const origins = (list) => (list?.length ? list.join(" ") : "'none'");
const policy = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src data:",
  `connect-src ${origins(csp.connectDomains)}`,
  `font-src ${origins(csp.resourceDomains)}`,
].join("; ");
// A violation reported in the view (a caught \`new Function\` too, which logs nothing) is kept
// where the host can read it.
const watchPolicy = `<script>window.violations = []; document.addEventListener("securitypolicyviolation", (e) => window.violations.push(e.violatedDirective + " " + e.blockedURI));</script>`;
const html = resource.text.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${policy}">${watchPolicy}`);

let pollCalls = 0;
// The host "suspends" the view once: the first poll after the view showed its cards fails, as a
// call does when a host puts a view to sleep; the view must ask again after the same cursor.
let suspendOnce = false;
let suspended = 0;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const violations = [];
try {
  const page = await browser.newPage({ viewport: { width: 940, height: 1460 } });
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  const openedLinks = [];
  await page.exposeFunction("hostOpenLink", async (url) => openedLinks.push(url));
  await page.exposeFunction("hostCallTool", async (params) => {
    if (params.name === "poll_session") {
      pollCalls += 1;
      if (suspendOnce) {
        suspendOnce = false;
        suspended += 1;
        throw new Error("the host suspended the view");
      }
    }
    return client.callTool(params);
  });
  await page.setContent("<!doctype html><html><head><title>host</title></head><body></body></html>");
  await page.addScriptTag({ content: hostScript });
  const input = { session };
  const result = await client.callTool({ name: "watch_session", arguments: input });
  await page.evaluate((args) => window.startHost(args), { html, input, result });
  const view = page.frames().find((f) => f !== page.mainFrame());
  await view.waitForSelector("[data-call]", { timeout: 20000 });
  const cards = await view.$$eval("[data-call]", (els) => els.length);
  // A call whose tool name is 163 characters: its title keeps a readable width.
  const longTitle = await view.$eval('[data-call="long-name"] .title', (e) => {
    const r = e.getBoundingClientRect();
    return { width: Math.round(r.width), height: Math.round(r.height) };
  });
  suspendOnce = true;
  process.stderr.write("shown\n");

  const lines = readline.createInterface({ input: process.stdin });
  const [late] = await new Promise((resolve) => lines.once("line", (l) => resolve([l.trim()])));
  const started = Date.now();
  await view.waitForSelector(`[data-call="${late}"]`, { timeout: 20000 });
  const lateMs = Date.now() - started;
  // Shown once, though a poll failed on the way.
  const lateShown = await view.$$eval(`section.card[data-call="${late}"]`, (els) => els.length);
  // A pending permission request: a person clicks Allow in the view; the decision comes back
  // through the next page, as it does for everyone.
  let answered = null;
  const pending = await view.$("[data-request][data-state=pending] button.allow");
  if (pending) {
    await pending.click();
    await view.waitForSelector("[data-request][data-state=allowed]", { timeout: 20000 });
    answered = await view.$eval("[data-request] .outcome", (e) => e.textContent);
  }
  await page.locator("iframe").screenshot({ path: screenshot });
  const title = await view.$eval("#session", (e) => e.textContent);
  // A link in a card: the sandbox blocks a new window, so the view asks the host to open it.
  await view.click('a[href^="https://"]');
  await page.waitForFunction(() => true);
  for (let i = 0; i < 50 && openedLinks.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  violations.push(...(await view.evaluate(() => window.violations)));
  // The host tears the view down: the view answers (with `{}`), as the spec asks.
  const teardown = await page.evaluate(() => window.bridge.teardownResource({}).then((r) => r, (e) => ({ error: String(e) })));
  const report = { cards, late, lateMs, lateShown, suspended, violations, policy, pollCalls, title, answered, openedLinks, teardown, longTitle };
  lines.close();
  process.stdout.write(JSON.stringify(report), () => process.exit(0));
} finally {
  await browser.close().catch(() => {});
}
