/**
 * The conflict radar on the dashboard, in a real browser against a real supervisor: a badge on
 * each colliding session's card naming the other, appearing live, and a mention in the inbox.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoginCodeView } from '../../src/api/web.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';

const shots = screenshotDir('conflicts');
let browser: Browser;
const problems: string[] = [];
const numbered = (change: Record<number, string>): string =>
  Array.from({ length: 30 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

chromiumForFile((launched) => (browser = launched), problems);

async function openDashboard(t: TestBaton): Promise<Page> {
  const login = await t.json<LoginCodeView>(['ui']);
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /hydrat|Minified React error/i.test(message.text()))
      problems.push(`console error: ${message.text()}`);
  });
  await page.goto(login.url);
  await page.waitForSelector('[data-testid=connection]:has-text("Live")');
  return page;
}

describe('conflicts on the board', () => {
  const t = new TestBaton();
  afterAll(() => t.cleanup());

  it('badges both cards of a hot pair live, naming the other, details it on the session page and mentions it in the inbox; a disjoint session has no badge', async () => {
    const repo = t.repo('shop', { 'a.txt': numbered({}), 'b.txt': numbered({}) });
    const page = await openDashboard(t);
    const dispatch = (name: string, steps: unknown[]) =>
      t.ok(['dispatch', `work on ${name}`, '--name', name, '--script', t.script(steps)], { cwd: repo });
    await dispatch('left', [{ write: { path: 'a.txt', content: numbered({ 7: 'left' }) } }]);
    await dispatch('apart', [{ write: { path: 'b.txt', content: numbered({ 1: 'apart' }) } }]);
    await t.waitForState('left', 'ready_for_review');
    await t.waitForState('apart', 'ready_for_review');
    // The last to arrive asks a question after its edit: it waits in the inbox, colliding.
    await dispatch('right', [
      { write: { path: 'a.txt', content: numbered({ 7: 'right' }) } },
      { ask: 'Rename the helper too?' },
    ]);
    await t.waitForState('right', 'needs_input');

    const badge = (name: string) =>
      page.locator(`.card:has(.card-name:text-is("${name}")) [data-testid=conflict]`);
    // No reload: the radar's events reach the open page.
    await expect.poll(() => badge('left').innerText(), { timeout: 20_000 }).toBe('hot · right');
    await expect.poll(() => badge('right').innerText()).toBe('hot · left');
    expect(await badge('left').getAttribute('class')).toContain('conflict-hot');
    expect(await badge('apart').count()).toBe(0);
    console.log(`screenshot: ${await shot(page, shots, 'board')}`);

    // The session's page says where: the file, both sides' lines, and the other side's change.
    await page.click('.card:has(.card-name:text-is("left"))');
    const panel = page.locator('[data-testid=conflicts]');
    await expect.poll(() => panel.innerText()).toContain('hot with right');
    expect(await panel.innerText()).toContain('a.txt: your line 7; theirs line 7 (same lines)');
    await panel.locator('summary').click();
    expect(await panel.locator('.conflict-diff').innerText()).toContain('+right');
    console.log(`screenshot: ${await shot(page, shots, 'session')}`);

    await page.click('.nav-link:has-text("Inbox")');
    const mention = page.locator(
      '.inbox-item:has(.inbox-name:text-is("right")) [data-testid=inbox-conflict]',
    );
    await expect.poll(() => mention.innerText()).toContain('Will collide with left (same lines)');
    expect(await mention.innerText()).toContain('baton conflicts right');
    console.log(`screenshot: ${await shot(page, shots, 'inbox')}`);
  });
});
