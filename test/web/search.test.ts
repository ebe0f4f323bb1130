/**
 * Search from the dashboard in a real browser (Debian Chromium) against a real supervisor: the
 * search box finds a phrase from a tool output far back in a long scripted session, and the
 * hit opens that session at the matching event, not at its newest page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginCodeView } from '../../src/api/web.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';

const shots = screenshotDir('search');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe('search from the dashboard', () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1' });
  let page: Page;

  beforeAll(async () => {
    const repo = t.repo();
    // The phrase is in a tool output near the start; 150 messages follow, more than the first page holds.
    const steps = [
      { run: ['sh', '-c', 'echo quartz-zebra-lantern found it'] },
      ...Array.from({ length: 150 }, (_, i) => ({ say: `Step ${i} of the long session.` })),
    ];
    await t.ok(['dispatch', 'a long session', '--name', 'long', '--script', t.script(steps)], { cwd: repo });
    await t.waitForState('long', 'ready_for_review');
    const login = await t.json<LoginCodeView>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(login.url);
    await page.waitForSelector('[data-testid=connection]:has-text("Live")');
  });
  afterAll(() => t.cleanup());

  it('finds a phrase from a tool output and opens the session at that event', async () => {
    await page.keyboard.press('s');
    await page.waitForSelector('[data-testid=search-page]');
    await page.fill('[data-testid=search-box]', 'quartz-zeb');
    const hit = page.locator('[data-testid=search-hit]').first();
    await hit.waitFor();
    expect(await hit.locator('mark').allTextContents()).toEqual(['quartz-zebra']);
    expect(await hit.textContent()).toContain('tool output');
    await shot(page, shots, 'hits');
    await hit.locator('a').click();
    const target = page.locator('[data-testid=search-target]');
    await target.waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/s\//);
    expect(await target.textContent()).toContain('quartz-zebra-lantern found it');
    expect(await target.isVisible()).toBe(true);
    // Opened at the hit, not at the end: the hit is in view, the session's last message is not.
    // Runs in the page (this project's test types carry no DOM).
    const inView = (el: { getBoundingClientRect(): { top: number; bottom: number } }): boolean => {
      const r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < (globalThis as unknown as { innerHeight: number }).innerHeight;
    };
    await expect.poll(() => target.evaluate(inView)).toBe(true);
    const last = page.locator('text=Step 149 of the long session.');
    await last.waitFor({ state: 'attached' });
    expect(await last.evaluate(inView)).toBe(false);
    await shot(page, shots, 'opened-at-hit');
  });

  it('says what is wrong with a query it cannot read, in the page', async () => {
    await page.goto(new URL('/search', page.url()).toString());
    await page.fill('[data-testid=search-box]', 'quartz AND');
    await expect
      .poll(async () => page.locator('[data-testid=search-error]').textContent())
      .toMatch(/not a valid query/);
    await page.fill('[data-testid=search-box]', 'nothing-like-this-anywhere');
    await expect
      .poll(async () => page.locator('[data-testid=search-hits]').textContent())
      .toBe('Nothing found.');
  });
});
