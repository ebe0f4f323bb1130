/**
 * Soft collisions on the page, in a real browser against a real supervisor: a session hot with
 * one neighbour and soft with another shows each under its own level on its card, and its page
 * says which file and that the lines differ; the soft neighbour's card is soft.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoginCodeView } from '../../src/api/web.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile } from '../support/browser.js';

let browser: Browser;
const problems: string[] = [];
const numbered = (change: Record<number, string>): string =>
  Array.from({ length: 30 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

chromiumForFile((launched) => (browser = launched), problems);

async function openDashboard(t: TestBaton): Promise<Page> {
  const login = await t.json<LoginCodeView>(['ui']);
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(login.url);
  await page.waitForSelector('[data-testid=connection]:has-text("Live")');
  return page;
}

describe('soft collisions on the page', () => {
  const t = new TestBaton();
  afterAll(() => t.cleanup());

  it('names a soft neighbour as soft beside a hot one, on the card and on the session page', async () => {
    const repo = t.repo('shop', { 'a.txt': numbered({}) });
    const page = await openDashboard(t);
    const dispatch = async (name: string, change: Record<number, string>) => {
      await t.ok(
        [
          'dispatch',
          `work on ${name}`,
          '--name',
          name,
          '--script',
          t.script([{ write: { path: 'a.txt', content: numbered(change) } }]),
        ],
        { cwd: repo },
      );
      await t.waitForState(name, 'ready_for_review');
    };
    await dispatch('left', { 7: 'left' });
    await dispatch('right', { 7: 'right' });
    await dispatch('far', { 25: 'far' });

    const badge = (name: string) =>
      page.locator(`.card:has(.card-name:text-is("${name}")) [data-testid=conflict]`);
    await expect.poll(() => badge('left').innerText(), { timeout: 20_000 }).toBe('hot · right · soft · far');
    expect(await badge('left').getAttribute('title')).toBe('Same lines as right (hot), far (soft)');
    await expect.poll(() => badge('far').innerText()).toBe('soft · left +1');
    expect(await badge('far').getAttribute('class')).toContain('conflict-soft');

    await page.click('.card:has(.card-name:text-is("far"))');
    const panel = page.locator('[data-testid=conflicts]');
    await expect.poll(() => panel.innerText()).toContain('soft with left');
    expect(await panel.innerText()).toContain('a.txt: your line 25; theirs line 7 (same file, other lines)');
    expect(problems).toEqual([]);
  });
});
