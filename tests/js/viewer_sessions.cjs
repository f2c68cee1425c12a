// The viewer's session list and a failed command's card, in headless Chromium (Debian's, via
// playwright-core), for tests/browser/.
//
//   node viewer_sessions.cjs <base-url> <session-to-open> <failed-call> <list.png> <card.png>
//
// Opens `/` (the session list), saves a screenshot, follows the link to the session, waits for
// the failed call's card, saves a screenshot of it, then opens a session that does not exist.
// Prints a JSON summary as its last line.
const { chromium } = require('playwright-core');

const [base, session, failedCall, listShot, cardShot] = process.argv.slice(2);

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.goto(`${base}/`);
    await page.waitForSelector('ul.sessions li', { timeout: 30000 });
    await page.waitForFunction(() => !/connecting/.test(document.getElementById('state').textContent));
    const listed = await page.evaluate(() => ({
      header: document.getElementById('session').textContent,
      state: document.getElementById('state').textContent,
      sessions: [...document.querySelectorAll('ul.sessions li')].map((li) => ({
        id: li.dataset.session, href: li.querySelector('a').getAttribute('href'), text: li.textContent,
      })),
    }));
    await page.screenshot({ path: listShot, fullPage: true });
    await page.click(`li[data-session="${session}"] a`);
    const card = await page.waitForSelector(`section[data-call="${failedCall}"][data-status="failed"]`, { timeout: 30000 });
    await card.screenshot({ path: cardShot });
    const failed = await card.evaluate((c) => ({
      status: c.dataset.status,
      label: c.querySelector('.pill.status').textContent,
      exit: c.querySelector('[data-exit]')?.textContent ?? null,
      url: location.search,
    }));
    await page.goto(`${base}/?session=nobody-yet`);
    await page.waitForFunction(() => /waiting/.test(document.getElementById('state').textContent), null, { timeout: 30000 });
    const waiting = await page.evaluate(() => document.getElementById('state').textContent);
    console.log(JSON.stringify({ listed, failed, waiting }));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
