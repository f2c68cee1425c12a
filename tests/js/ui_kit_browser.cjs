// Drives headless Chromium (Debian's, via playwright-core) over three pages that show one toolview
// session: the viewer, the CopilotKit example and the useChat example (examples/react, bundled
// into <pages>). Each card's DOM is read in a normalized form, to compare across the pages.
//
//   node ui_kit_browser.cjs <pages-dir> <session> <screenshots-dir> <cards>
//   node ui_kit_browser.cjs --follow <pages-dir> <session> <screenshots-dir> <first> <cards>
//
// Serves <pages-dir> on a port of its own and prints "origin http://127.0.0.1:PORT" (the toolview
// server is then started allowing that origin); reads the server's URL from stdin; waits on each
// page for <cards> finished cards; saves a screenshot per page; prints a JSON object as its last
// line: {viewer, copilotkit, useChat, session}, each {callId: normalized card DOM}.
// --follow: only the hook's page (session.html); once it shows <first> finished cards it prints
// "ready", waits for "published" on stdin (the test restarts the server and publishes more), then
// for <cards>, and prints {calls}: the call ids of the cards shown, in page order.
//   node ui_kit_browser.cjs --approve <pages-dir> <session> <screenshots-dir> <request> <option>
// --approve: only the useChat page; once request <request> shows its buttons it presses
// <option>'s, waits for the decision to be shown, then 2 s more, and prints {state, posts}: the
// prompt's state and the page's POSTs, counted by path.
//   node ui_kit_browser.cjs --inbox <pages-dir> <session> <screenshots-dir> <option>
// --inbox: the viewer's home page and the inbox page (useToolviewSessions, ToolviewInbox); once
// <session> shows first on both, waiting with its buttons, saves a screenshot of the inbox page,
// presses <option> there, waits for the row to leave requires_action, and prints {viewer, react,
// after}: both pages' rows (normalized DOM, in order) and the row's state after.
const { chromium } = require('playwright-core');
const http = require('http');
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const mode = process.argv[2].startsWith('--') ? process.argv[2] : '';
const follow = mode === '--follow';
const [pages, session, shots, ...counts] = process.argv.slice(mode ? 3 : 2);
const cards = Number(counts[counts.length - 1]);
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf' };

function serve() {
  const server = http.createServer((req, res) => {
    const file = path.join(pages, path.normalize(new URL(req.url, 'http://x').pathname).replace(/^(\.\.[/\\])+/, ''));
    fs.readFile(file, (err, body) => {
      if (err) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' }).end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// In the page: each finished card's DOM as {tag, attrs, children} with adjacent texts merged and
// a subagent's group left out (only the viewer nests; the chats list every card on its own).
function snapshot() {
  const norm = (el) => {
    const children = [];
    for (const c of el.childNodes) {
      if (c.nodeType === Node.TEXT_NODE) {
        if (typeof children[children.length - 1] === 'string') children[children.length - 1] += c.data;
        else if (c.data) children.push(c.data);
      } else if (c.nodeType === Node.ELEMENT_NODE && !(c.tagName === 'DETAILS' && c.classList.contains('children'))) {
        children.push(norm(c));
      }
    }
    const attrs = Object.fromEntries([...el.attributes].map((a) => [a.name, a.value]).sort(([a], [b]) => (a < b ? -1 : 1)));
    return { tag: el.tagName.toLowerCase(), attrs, children };
  };
  const out = {};
  for (const c of document.querySelectorAll('section.card')) out[c.dataset.call] = norm(c);
  return out;
}

const finished = (page, n) =>
  page.waitForFunction(
    (n) => document.querySelectorAll('section.card[data-status="completed"], section.card[data-status="failed"]').length >= n,
    n,
    { timeout: 60000 },
  );

async function show(browser, name, url) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1800 } });
  page.on('pageerror', (e) => console.error(`${name}: page error: ${e.message}`));
  await page.goto(url);
  await finished(page, cards);
  await page.screenshot({ path: path.join(shots, `ui-kit-${name}.png`), fullPage: true });
  const dom = await page.evaluate(snapshot);
  await page.close();
  return dom;
}

/** The hook's page across a server restart: every card once, in order. */
async function followAcrossRestart(browser, url, lines) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1200 } });
  page.on('pageerror', (e) => console.error(`session: page error: ${e.message}`));
  await page.goto(url);
  await finished(page, Number(counts[0]));
  console.log('ready');
  while ((await lines.next()).value?.trim() !== 'published') {}
  await finished(page, cards);
  await page.screenshot({ path: path.join(shots, 'ui-kit-hook-restart.png'), fullPage: true });
  return { calls: await page.evaluate(() => [...document.querySelectorAll('section.card')].map((c) => c.dataset.call)) };
}

/** The useChat page answering a permission request with its own buttons. */
async function approve(browser, url) {
  const [request, option] = counts;
  const page = await browser.newPage({ viewport: { width: 1100, height: 1200 } });
  page.on('pageerror', (e) => console.error(`use-chat: page error: ${e.message}`));
  const posts = {};
  page.on('request', (r) => {
    if (r.method() !== 'POST') return;
    const where = new URL(r.url()).pathname;
    posts[where] = (posts[where] || 0) + 1;
  });
  await page.goto(url);
  const prompt = `section.permission[data-request="${request}"]`;
  await page.click(`${prompt} button[data-option="${option}"]`, { timeout: 60000 });
  await page.waitForSelector(`${prompt}:not([data-state="pending"])`, { timeout: 60000 });
  await page.waitForTimeout(2000);
  const state = await page.getAttribute(prompt, 'data-state');
  await page.screenshot({ path: path.join(shots, 'ui-kit-use-chat-approve.png'), fullPage: true });
  return { state, posts };
}

async function main() {
  const server = await serve();
  console.log(`origin http://127.0.0.1:${server.address().port}`);
  const rl = readline.createInterface({ input: process.stdin });
  const lines = rl[Symbol.asyncIterator]();
  const base = (await lines.next()).value.trim();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const query = `server=${encodeURIComponent(base)}&session=${encodeURIComponent(session)}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const result = follow
      ? await followAcrossRestart(browser, `${origin}/session.html?${query}`, lines)
      : mode === '--approve'
        ? await approve(browser, `${origin}/use-chat.html?${query}`)
        : mode === '--inbox'
        ? await inbox(browser, `${base}/`, `${origin}/inbox.html?${query}`)
        : {
          viewer: await show(browser, 'viewer', `${base}/?session=${encodeURIComponent(session)}`),
          copilotkit: await show(browser, 'copilotkit', `${origin}/copilotkit.html?${query}`),
          useChat: await show(browser, 'use-chat', `${origin}/use-chat.html?${query}`),
          session: await show(browser, 'session', `${origin}/session.html?${query}`),
        };
    rl.close();
    process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
  } finally {
    await browser.close();
    server.close();
  }
}

// Both inboxes: the same rows, waiting first; the React one answers.
async function inbox(browser, viewerUrl, reactUrl) {
  const option = counts[0];
  const first = `ul.inbox > li:first-child[data-session="${session}"][data-state="requires_action"] button[data-option="${option}"]`;
  // Each row's DOM as {tag, attrs, children}, adjacent texts merged (as `snapshot` reads a card).
  const rows = (page) => page.evaluate(() => {
    const norm = (el) => {
      const children = [];
      for (const c of el.childNodes) {
        if (c.nodeType === Node.TEXT_NODE) {
          if (typeof children[children.length - 1] === 'string') children[children.length - 1] += c.data;
          else if (c.data) children.push(c.data);
        } else if (c.nodeType === Node.ELEMENT_NODE) {
          children.push(norm(c));
        }
      }
      const attrs = Object.fromEntries([...el.attributes].map((a) => [a.name, a.value]).sort(([a], [b]) => (a < b ? -1 : 1)));
      return { tag: el.tagName.toLowerCase(), attrs, children };
    };
    return [...document.querySelectorAll('ul.inbox > li')].map(norm);
  });
  const viewer = await browser.newPage({ viewport: { width: 900, height: 600 } });
  await viewer.goto(viewerUrl);
  await viewer.waitForSelector(first, { timeout: 30000 });
  const react = await browser.newPage({ viewport: { width: 900, height: 600 } });
  react.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await react.goto(reactUrl);
  await react.waitForSelector(first, { timeout: 30000 });
  const shown = { viewer: await rows(viewer), react: await rows(react) };
  await react.screenshot({ path: path.join(shots, 'ui-kit-inbox.png'), fullPage: true });
  await react.click(first);
  await react.waitForSelector(`ul.inbox > li[data-session="${session}"]:not([data-state="requires_action"])`, { timeout: 30000 });
  const after = await react.evaluate((s) => document.querySelector(`ul.inbox > li[data-session="${s}"]`).dataset.state, session);
  return { ...shown, after };
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
