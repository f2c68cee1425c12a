// A hostile page in headless Chromium (Debian's, via playwright-core): served from an origin of
// its own on loopback, it tries to change state on a toolview server the way any web page can.
//
//   node cross_origin_browser.cjs
//
// Serves the page and prints "origin http://127.0.0.1:PORT". Then, for each line
// "<server url> <session>" on stdin, the page sends, to every endpoint that changes state, each
// kind of request a page may send: three "simple" ones a browser sends without asking the server
// first (no-cors: text/plain, a form, a body with no type) and a JSON one that needs a CORS
// preflight. The endpoints: /permissions answering perm-1, /ag-ui resuming perm-2, /ai-sdk
// approving perm-3, OTLP/HTTP publishing a span into `<session>-otlp`, and /mcp initializing.
// Prints one JSON line per round: {endpoint: {kind: "sent" | "status N" | "error: …"}}.
const { chromium } = require('playwright-core');
const http = require('http');
const readline = require('readline');

const PAGE = '<!doctype html><title>not toolview</title><p>Nothing to see here.</p>';

function serve() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// In the page: every endpoint, every kind of request; what the page could observe of each.
async function attack({ server, session }) {
  const span = {
    resourceSpans: [{
      resource: { attributes: [{ key: 'toolview.session.id', value: { stringValue: `${session}-otlp` } }] },
      scopeSpans: [{ spans: [{
        traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'execute_tool Bash',
        kind: 1, startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000',
        attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
          { key: 'gen_ai.tool.name', value: { stringValue: 'Bash' } }],
      }] }],
    }],
  };
  const bodies = {
    permissions: [`/permissions/${session}/perm-1`, { optionId: 'allow' }],
    'ag-ui': ['/ag-ui', {
      threadId: session, runId: 'r', messages: [], tools: [], context: [], state: {},
      forwardedProps: { toolview: { follow: false } },
      resume: [{ interruptId: 'perm-2', status: 'resolved', payload: { optionId: 'allow' } }],
    }],
    'ai-sdk': ['/ai-sdk', {
      id: session, toolview: { follow: false },
      messages: [{ id: 'm', role: 'assistant', parts: [{ type: 'tool-Bash', toolCallId: 'c3', state: 'approval-responded', approval: { id: 'perm-3', approved: true } }] }],
    }],
    otlp: ['/v1/traces', span],
    mcp: ['/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } } }],
  };
  const kinds = {
    'text/plain': (json) => ({ mode: 'no-cors', body: json }),
    form: (json) => ({ mode: 'no-cors', body: new URLSearchParams({ json }) }),
    'no type': (json) => ({ mode: 'no-cors', body: new Blob([json]) }),
    'json (preflighted)': (json) => ({ mode: 'cors', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: json }),
  };
  const report = {};
  for (const [name, [path, body]] of Object.entries(bodies)) {
    report[name] = {};
    for (const [kind, init] of Object.entries(kinds)) {
      try {
        const r = await fetch(server + path, { method: 'POST', ...init(JSON.stringify(body)) });
        report[name][kind] = r.type === 'opaque' ? 'sent' : `status ${r.status}`;
      } catch (e) {
        report[name][kind] = `error: ${e.message}`;
      }
    }
  }
  return report;
}

(async () => {
  const pages = await serve();
  const origin = `http://127.0.0.1:${pages.address().port}`;
  console.log(`origin ${origin}`);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    for await (const line of readline.createInterface({ input: process.stdin })) {
      const [server, session] = line.trim().split(' ');
      if (!server) continue;
      console.log(JSON.stringify(await page.evaluate(attack, { server, session })));
    }
  } finally {
    await browser.close();
    pages.close();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
