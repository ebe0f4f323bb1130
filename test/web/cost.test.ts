/**
 * The Cost page and the alerts in a real browser (Debian Chromium) against a real supervisor:
 * scripted sessions report usage (one priced by the table, one by its own cost), a looping one is
 * paused with an alert; the page shows the spend, the 24-hour chart and the alert, which it
 * acknowledges; an alert raised while the page is open arrives live.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertList } from '../../src/api/watchdog.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';

const shots = screenshotDir('cost');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe('the Cost page', () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1', BATON_NOTIFY: 'off' });
  let repo: string;

  beforeAll(async () => {
    repo = t.repo('shop');
    await t.ok(['budget', 'set', '--day', '40usd'], { cwd: repo });
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'priced',
        '--script',
        t.script([
          { usage: { input: 1_000_000, output: 100_000, model: 'gpt-5.5' } },
          { usage: { input: 10, output: 10, usd: 0.25 } },
        ]),
      ],
      { cwd: repo },
    );
    await t.ok(
      [
        'dispatch',
        'y',
        '--name',
        'looper',
        '--script',
        t.script([
          { run: 'touch gone.stamp && ls gone' },
          { run: 'touch gone.stamp && ls gone' },
          { run: 'touch gone.stamp && ls gone' },
          { sleep: 60_000 },
        ]),
      ],
      { cwd: repo },
    );
    await t.waitForState('priced', 'ready_for_review');
    await t.waitForState('looper', 'needs_input');
  });
  afterAll(() => t.cleanup());

  async function open(path: string): Promise<Page> {
    const login = await t.json<{ url: string }>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${login.url}&next=${encodeURIComponent(path)}`);
    await page.waitForSelector('[data-testid=connection]:has-text("Live")');
    return page;
  }

  const loopAlert = (page: Page) =>
    page.locator('[data-testid=alert]').filter({ has: page.locator('.alert-rule', { hasText: /^loop$/ }) });

  it('shows the spend by session and by agent, the chart, the budget and the open alert with its evidence', async () => {
    const page = await open('/cost');
    await page.waitForSelector('[data-testid=cost-row]');
    const rows = await page.locator('[data-testid=cost-row]').allTextContents();
    expect(rows[0]).toMatch(/^shop\/priced.*\$2\.50$/);
    expect(await page.locator('[data-testid=cost-summary]').textContent()).toMatch(/Total \$2\.50/);
    expect(await page.locator('.cost-bar').count()).toBe(24);
    // The current hour is the busiest: its bar is full height.
    expect(await page.locator('.cost-bar').last().getAttribute('style')).toMatch(/height: 100%/);
    expect(await page.locator('[data-testid=cost-limits]').textContent()).toMatch(
      /today: \$2\.50 of \$40\.00/,
    );
    const alert = loopAlert(page);
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/loop.*looper.*the same .* 3 times.*paused.*ls gone/);
    await page.selectOption('select[aria-label="Group by"]', 'agent');
    await page.waitForSelector('[data-testid=cost-row]:has-text("scripted")');
    await shot(page, shots, 'cost-page');
  });

  it('acknowledges an alert from the inbox, and a new one arrives live', async () => {
    const page = await open('/inbox');
    const alert = loopAlert(page);
    await alert.waitFor();
    await alert.getByRole('button', { name: 'Acknowledge' }).click();
    await alert.waitFor({ state: 'detached' });
    const open_ = await t.json<AlertList>(['alerts'], { cwd: repo });
    expect(open_.alerts.filter((a) => a.rule === 'loop')).toEqual([]);

    await t.ok(
      [
        'dispatch',
        'z',
        '--name',
        'errs',
        '--script',
        t.script([{ fail: 'one' }], { onReply: [{ fail: 'two' }] }),
      ],
      { cwd: repo },
    );
    await t.waitForState('errs', 'failed');
    await t.ok(['budget', 'set', '--day', '2usd'], { cwd: repo });
    await t.ok(['dispatch', 'w', '--name', 'late', '--script', t.script([{ say: 'hi' }])], { cwd: repo });
    const fresh = page
      .locator('[data-testid=alert]')
      .filter({ has: page.locator('a', { hasText: /^late$/ }) });
    await fresh.waitFor();
    expect(await fresh.textContent()).toMatch(/window.*dispatched while the today budget is already spent/);
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
