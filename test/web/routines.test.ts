/**
 * Routines on the dashboard in a real browser against a real supervisor: the Routines page lists
 * each routine with its next run time and goes live when one runs (started from the page or the
 * CLI); a run's findings appear in the inbox while its session waits for review.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { RoutineDetailView } from '../../src/routines/index.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';

const shots = screenshotDir('routines');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe('routines on the dashboard', () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1' });
  const repo = t.repo('shop');
  afterAll(() => t.cleanup());

  async function open(path: string): Promise<Page> {
    const login = await t.json<{ url: string }>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${login.url}&next=${encodeURIComponent(path)}`);
    await page.waitForSelector('[data-testid=connection]:has-text("Live")');
    return page;
  }

  it('lists routines with their next run, runs one from the page, and shows its findings in the inbox', async () => {
    const digest = await t.json<RoutineDetailView>(
      [
        'routine',
        'add',
        'digest',
        '--cron',
        '0 8 * * *',
        '--tz',
        'UTC',
        '--agent',
        'scripted',
        '--prompt',
        'summarise yesterday',
      ],
      { cwd: repo },
    );
    await t.ok(
      [
        'routine',
        'add',
        'flags',
        '--on',
        'http',
        '--agent',
        'scripted',
        '--prompt',
        'look for dead flags',
        '--script',
        t.script([{ say: 'OLD_UI is dead: remove it.' }]),
      ],
      { cwd: repo },
    );
    const page = await open('/routines');
    const row = page.locator('tr[data-routine=digest]');
    await row.waitFor();
    expect(await row.locator('[data-testid=next-run]').getAttribute('title')).toBe(digest.nextRunAt);
    expect(await row.textContent()).toContain('cron 0 8 * * * (UTC)');
    expect(await page.locator('tr[data-routine=flags]').textContent()).toContain('never');

    // Run from the page: the row goes live to its outcome without a reload.
    await page.locator('tr[data-routine=flags] button:has-text("Run now")').click();
    await page.locator('tr[data-routine=flags] .outcome-findings').waitFor({ timeout: 30_000 });
    await shot(page, shots, 'routines');

    // Paused from the CLI: the page follows.
    await t.ok(['routine', 'pause', 'digest'], { cwd: repo });
    await page.locator('tr[data-routine=digest] .tag:has-text("paused")').waitFor();

    // The finding waits in the inbox with its session.
    await page.goto(page.url().replace(/\/routines$/, '/inbox'));
    const finding = page.locator('[data-testid=routine-findings] [data-routine=flags]');
    await finding.waitFor();
    expect(await finding.textContent()).toContain('OLD_UI is dead: remove it.');
    expect(problems).toEqual([]);
  });
});
