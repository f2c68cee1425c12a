// The viewer's inbox in headless Chromium (Debian's, via playwright-core), for tests/browser/.
//
//   node viewer_inbox.cjs <base-url> <session-that-will-ask> <inbox.png>
//
// Opens `/` (the inbox) and prints `ready` once it is live. Waits for the session to show as the
// first row, waiting on a person, with its prompt; clicks its Allow button; saves a screenshot.
// Once `published` comes on stdin, waits for the row to leave "requires_action", and prints a
// JSON summary as its last line: the rows as first shown, how long the prompt took to appear
// after `ready` (ms), and the row after the answer.
const { chromium } = require('playwright-core');
const readline = require('node:readline');

const [base, asking, shot] = process.argv.slice(2);

const rows = (page) => page.evaluate(() => [...document.querySelectorAll('ul.inbox > li')].map((li) => ({
  id: li.dataset.session, state: li.dataset.state, text: li.textContent,
  prompt: li.querySelector('.prompt-title')?.textContent ?? null,
  buttons: [...li.querySelectorAll('.prompt button')].map((b) => b.dataset.option),
})));

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.goto(`${base}/`);
    await page.waitForSelector('ul.inbox > li', { timeout: 30000 });
    const before = await rows(page);
    console.log('ready');
    const t0 = Date.now();
    const first = `ul.inbox > li:first-child[data-session="${asking}"][data-state="requires_action"] .prompt button[data-option="allow"]`;
    await page.waitForSelector(first, { timeout: 30000 });
    const appearedMs = Date.now() - t0;
    const waiting = await rows(page);
    await page.screenshot({ path: shot, fullPage: true });
    await page.click(first);
    const stdin = readline.createInterface({ input: process.stdin });
    for await (const line of stdin) if (line === 'published') break;
    await page.waitForSelector(`ul.inbox > li[data-session="${asking}"]:not([data-state="requires_action"])`, { timeout: 30000 });
    const after = (await rows(page)).find((r) => r.id === asking);
    console.log(JSON.stringify({ before, appearedMs, waiting, after }));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
