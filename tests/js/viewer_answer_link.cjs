// A webhook's answer link in headless Chromium (Debian's, via playwright-core), for
// tests/browser/answer_link.rs.
//
//   node viewer_answer_link.cjs <answer-link> <answer.png>
//
// Opens the link and prints `ready` once its prompt and confirmation button show (opening it
// must answer nothing: the test checks that meanwhile). Once `published` comes on stdin, clicks
// the button, saves a screenshot, opens the link again, and prints a JSON summary as its last
// line: the page as first shown, after the click, and opened again.
const { chromium } = require('playwright-core');
const readline = require('node:readline');

const [link, shot] = process.argv.slice(2);

const page_state = (page) => page.evaluate(() => ({
  state: document.getElementById('state')?.textContent ?? null,
  panel: document.querySelector('.answer-link')?.dataset.state ?? null,
  title: document.querySelector('.answer-link .prompt-title')?.textContent ?? null,
  confirm: document.querySelector('.answer-link .confirm')?.textContent ?? null,
  note: document.querySelector('.answer-link .answer-note')?.textContent ?? null,
}));

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 400 } });
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.goto(link);
    await page.waitForSelector('.answer-link .confirm', { timeout: 30000 });
    const opened = await page_state(page);
    console.log('ready');
    const stdin = readline.createInterface({ input: process.stdin });
    for await (const line of stdin) if (line === 'published') break;
    await page.click('.answer-link .confirm');
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'answered', null, { timeout: 30000 });
    const answered = await page_state(page);
    await page.screenshot({ path: shot, fullPage: true });
    const again = await browser.newPage();
    await again.goto(link);
    await again.waitForFunction(() => document.getElementById('state')?.textContent === 'decided', null, { timeout: 30000 });
    console.log(JSON.stringify({ opened, answered, again: await page_state(again) }));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
