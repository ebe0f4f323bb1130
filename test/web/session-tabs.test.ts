/**
 * A session's tabs live in the address's fragment (decision 426), in a real browser against a real
 * supervisor: a fragment that names no tab (the diff's own file links, odd or hostile ones) neither
 * closes the open tab nor breaks the page, and the keys 1/2/3 leave a reply being typed alone.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile } from '../support/browser.js';

let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe("a session's tabs and the address's fragment", () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1' });
  let session: SessionView;
  afterAll(() => t.cleanup());

  beforeAll(async () => {
    const repo = t.repo('app', { 'src/app.ts': 'export const a = 1;\n' });
    await t.ok(
      [
        'dispatch',
        'add two modules',
        '--name',
        'tabs',
        '--script',
        t.script([
          { write: { path: 'src/one.ts', content: 'export const one = 1;\n' } },
          { write: { path: 'src/two.ts', content: 'export const two = 2;\n' } },
        ]),
      ],
      { cwd: repo },
    );
    session = await t.waitForState('tabs', 'ready_for_review');
  }, 120_000);

  async function open(fragment = ''): Promise<Page> {
    const login = await t.json<{ url: string }>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    await page.goto(login.url);
    await page.goto(new URL(`/s/${session.id}${fragment}`, login.url).toString());
    await page.waitForSelector('[data-testid=session-page]');
    // The keys below are the app's: the page's rendered HTML has none until the app runs.
    await page.waitForSelector('[data-testid=connection]:has-text("Live")');
    return page;
  }

  const selected = (page: Page) => page.getAttribute('[role=tab][aria-selected=true]', 'href');

  it("keeps the Changes tab open when the diff's list of files is clicked", async () => {
    const page = await open('#changes');
    await page.waitForSelector('[data-testid=diff] .d2h-file-list a.d2h-file-name');
    // diff2html's list links each file to its place in the diff by a fragment of its own.
    await page.click('[data-testid=diff] .d2h-file-list a.d2h-file-name >> nth=1');
    expect(new URL(page.url()).hash).toMatch(/^#d2h-/);
    // A fragment's change renders at once; a frame later the page shows what it will.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(resolve))');
    expect(await page.locator('[data-testid=transcript]').count()).toBe(0);
    expect(await page.locator('[data-testid=diff] .d2h-file-wrapper').count()).toBe(2);
    expect(await selected(page)).toBe('#changes');
    // Back to the tab's own address: still the diff; and a tab click still switches.
    await page.goBack();
    expect(new URL(page.url()).hash).toBe('#changes');
    await page.click('[role=tab]:has-text("Usage")');
    expect(await selected(page)).toBe('#usage');
    await page.context().close();
  });

  it('opens the transcript for a fragment that names no tab, without an error', async () => {
    for (const fragment of [
      '#constructor',
      '#__proto__',
      '#changes?x',
      '#%63hanges',
      `#${'x'.repeat(20_000)}`,
    ]) {
      const page = await open(fragment);
      await page.waitForSelector('[data-testid=transcript]');
      expect(await selected(page)).toBe('#transcript');
      await page.keyboard.press('2');
      await page.waitForSelector('[data-testid=diff]');
      expect(new URL(page.url()).hash).toBe('#changes');
      await page.context().close();
    }
  });

  it('leaves the keys 1/2/3 to a reply being typed', async () => {
    const page = await open('#usage');
    await page.waitForSelector('[role=tab][aria-selected=true][href="#usage"]');
    await page.focus('.session-reply textarea');
    await page.keyboard.type('2 then 1');
    expect(await selected(page)).toBe('#usage');
    expect(await page.inputValue('.session-reply textarea')).toBe('2 then 1');
    await page.context().close();
  });

  it('answers the address of a session that does not exist, a tab named or not, without an error', async () => {
    for (const fragment of ['', '#changes']) {
      // A login is used once: each browser its own.
      const login = await t.json<{ url: string }>(['ui']);
      const context = await browser.newContext();
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
      await page.goto(login.url);
      const response = await page.goto(new URL(`/s/no-such-session${fragment}`, login.url).toString());
      expect(response?.status()).toBeLessThan(500);
      await page.waitForSelector('text=This session does not exist');
      await context.close();
    }
  });

  it("keeps each session's page to its own tab, Back and Forward included", async () => {
    const repo = t.repo('other', { 'a.txt': 'a\n' });
    await t.ok(
      [
        'dispatch',
        'one file',
        '--name',
        'second',
        '--script',
        t.script([{ write: { path: 'b.txt', content: 'b\n' } }]),
      ],
      { cwd: repo },
    );
    const second = await t.waitForState('second', 'ready_for_review');
    const page = await open();
    await page.keyboard.press('2');
    await page.waitForSelector('[data-testid=diff]');
    // To the board and into the other session: its page starts on its transcript.
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=session-page]', { state: 'detached' });
    await page.evaluate(
      `history.pushState(null, '', '/s/${second.id}'); dispatchEvent(new PopStateEvent('popstate'))`,
    );
    await page.waitForSelector('[data-testid=session-page] h1:text-is("second")');
    expect(await selected(page)).toBe('#transcript');
    await page.keyboard.press('3');
    expect(await selected(page)).toBe('#usage');
    // Back twice: the first session's page, on the tab it was left on.
    await page.goBack();
    await page.goBack();
    await page.waitForSelector('[data-testid=session-page] h1:text-is("tabs")');
    expect(await selected(page)).toBe('#changes');
    await page.goForward();
    await page.goForward();
    await page.waitForSelector('[data-testid=session-page] h1:text-is("second")');
    expect(await selected(page)).toBe('#usage');
    await page.context().close();
  });

  it('reports no page errors', () => {
    expect(problems).toEqual([]);
  });
});
