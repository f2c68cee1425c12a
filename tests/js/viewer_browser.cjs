// Drives the toolview viewer in headless Chromium (Debian's, via playwright-core).
//
//   node viewer_browser.cjs <base-url> <session> <screenshot.png> <last-call-id> [token]
//
// A token is passed to the page in its URL fragment (`#token=…`); CHROMIUM_ARGS adds
// space-separated browser flags (e.g. a certificate pin for a test CA); CLICK, a CSS selector of a
// button to press once it is shown; VIEWPORT, the page's size (WxH).
// Prints "ready" once the first card is shown (the Rust test then publishes the rest of the
// session live), waits for the final state, saves a screenshot, and prints a JSON summary of
// the rendered DOM as its last line.
const { chromium } = require('playwright-core');
const readline = require('readline');

const [base, session, shot, lastCall, token] = process.argv.slice(2);
const extraArgs = (process.env.CHROMIUM_ARGS || '').split(' ').filter(Boolean);

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...extraArgs],
  });
  try {
    // VIEWPORT=WxH (the README's picture is cut to its cards); the tests' default is tall.
    const [width, height] = (process.env.VIEWPORT || '1100x1500').split('x').map(Number);
    const page = await browser.newPage({ viewport: { width, height } });
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    const fragment = token ? `#token=${encodeURIComponent(token)}` : '';
    const response = await page.goto(`${base}/?session=${encodeURIComponent(session)}${fragment}`);
    await page.waitForSelector('section.card', { timeout: 30000 });
    // CLICK: a button to press once it is shown (a permission request's option, say).
    if (process.env.CLICK) {
      await page.waitForSelector(process.env.CLICK, { timeout: 30000 });
      await page.click(process.env.CLICK);
    }
    console.log('ready');
    // Wait until the test says everything is published, then for the last card to finish.
    const rl = readline.createInterface({ input: process.stdin });
    for await (const line of rl) if (line.trim() === 'published') break;
    rl.close();
    process.stdin.destroy();
    await page.waitForSelector(`section[data-call="${lastCall}"][data-status="completed"]`, { timeout: 30000 });
    await page.screenshot({ path: shot, fullPage: true });
    const summary = await page.evaluate(() => ({
      header: document.getElementById('session').textContent,
      csp: null,
      state: document.getElementById('state').textContent,
      cards: [...document.querySelectorAll('section.card')].map((c) => ({
        call: c.dataset.call,
        card: c.dataset.card,
        status: c.dataset.status,
        title: c.querySelector('.title')?.textContent,
        exit: c.querySelector('[data-exit]')?.dataset.exit ?? null,
        command: c.querySelector('.terminal .cmd')?.textContent ?? null,
        cwd: c.querySelector('.terminal .cwd')?.textContent ?? null,
        output: c.querySelector('.terminal .output')?.textContent ?? null,
        // Text nodes in the output block: one per append applied (a re-rendered card has one).
        outputNodes: c.querySelector('.terminal .output')?.childNodes.length ?? null,
        added: [...c.querySelectorAll('.diff .add')].map((e) => e.textContent.trim()),
        removed: [...c.querySelectorAll('.diff .del')].map((e) => e.textContent.trim()),
        lines: [...c.querySelectorAll('pre.read > span')].map((e) => e.textContent.trim()),
        text: c.textContent,
        links: [...c.querySelectorAll('a')].map((a) => a.getAttribute('href')),
        // A presenter's console block, shown as output.
        console: c.querySelector('pre.console')?.textContent ?? null,
        // Nesting: the card it is grouped under, and its own group's summary.
        parent: c.parentElement?.closest('section.card')?.dataset.call ?? null,
        group: c.querySelector(':scope > details.children > summary')?.textContent ?? null,
        // A pending call's input so far.
        input: c.querySelector('pre.input')?.textContent ?? null,
      })),
      messages: [...document.querySelectorAll('section.message')].map((m) => ({
        id: m.dataset.message,
        parent: m.parentElement?.closest('section.card')?.dataset.call ?? null,
        role: m.dataset.role,
        status: m.dataset.status,
        text: m.querySelector('.text').textContent,
        // Text nodes: one per append applied.
        textNodes: m.querySelector('.text').childNodes.length,
        markup: m.querySelector('.text').children.length,
        // What the text became: its HTML, its element kinds and its links.
        html: m.querySelector('.text').innerHTML,
        tags: [...new Set([...m.querySelectorAll('.text *')].map((e) => e.localName))].sort(),
        links: [...m.querySelectorAll('.text a')].map((a) => a.getAttribute('href')),
      })),
      turns: [...document.querySelectorAll('div.turn')].map((t) => t.textContent),
      permissions: [...document.querySelectorAll('section.permission')].map((p) => ({
        request: p.dataset.request,
        state: p.dataset.state,
        buttons: p.querySelectorAll('button').length,
        text: p.textContent,
      })),
    }));
    summary.csp = response.headers()['content-security-policy'] ?? null;
    console.log(JSON.stringify(summary));
  } finally {
    await browser.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e.stack || String(e));
    process.exit(1);
  },
);
