/**
 * Who wrote a line, in a real browser (Debian Chromium) against a real supervisor: a scripted
 * session writes a file in its first turn and rewrites one line in its reply turn; on the session's
 * Changes tab, hovering a line (or reaching it with Tab) shows the turn that wrote it, the prompt or
 * reply it answered, and the agent — read from the session's turn chain, fetched once per file.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';

const shots = screenshotDir('line-provenance');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe("a line's writer on the session's diff", () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1' });
  let repo: string;
  let session: SessionView;
  afterAll(() => t.cleanup());

  beforeAll(async () => {
    repo = t.repo('app', { 'src/app.ts': 'export const a = 1;\n' });
    await t.ok(
      [
        'dispatch',
        'add the greeting module',
        '--name',
        'greeter',
        '--script',
        t.script(
          [
            {
              write: {
                path: 'src/greet.ts',
                content: "export const hello = 'hello';\nexport const bye = 'bye';\n",
              },
            },
          ],
          { onReply: [{ edit: { path: 'src/greet.ts', old: "'bye'", new: "'{{reply}}'" } }] },
        ),
      ],
      { cwd: repo },
    );
    await t.waitForState('greeter', 'ready_for_review');
    await t.workspaceEvent(
      (e) => e.type === 'provenance.recorded' && e.data.name === 'greeter' && e.data.turn === 1,
    );
    await t.ok(['reply', 'greeter', 'farewell'], { cwd: repo });
    await t.workspaceEvent(
      (e) => e.type === 'provenance.recorded' && e.data.name === 'greeter' && e.data.turn === 2,
    );
    session = await t.waitForState('greeter', 'ready_for_review');
  }, 120_000);

  async function openChanges(): Promise<{ page: Page; blameCalls: string[] }> {
    const login = await t.json<{ url: string }>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const blameCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/provenance/sessions/')) blameCalls.push(r.url());
    });
    await page.goto(login.url);
    await page.goto(new URL(`/s/${session.id}`, login.url).toString());
    await page.waitForSelector('[data-testid=session-page]');
    await page.click('[role=tab]:has-text("Changes")');
    await page.waitForSelector('[data-testid=diff] .d2h-file-wrapper');
    return { page, blameCalls };
  }

  /** The diff's row of the new side holding `text`. */
  const row = (page: Page, text: string) =>
    page.locator('[data-testid=diff] tr', { has: page.locator(`.d2h-code-line-ctn:text-is("${text}")`) });

  it('shows the turn, its prompt or reply, and the agent when a line is hovered; blame is fetched once per file', async () => {
    const { page, blameCalls } = await openChanges();
    await row(page, "export const hello = 'hello';").hover();
    const why = page.locator('[data-testid=line-provenance]');
    await why.waitFor();
    await page.waitForSelector('[data-testid=line-provenance]:has-text("turn 1")');
    const first = await why.innerText();
    expect(first).toContain('src/greet.ts:1');
    expect(first).toContain('greeter · turn 1 · scripted');
    expect(first).toContain('Asked: add the greeting module');
    await shot(page, shots, 'hover');

    await row(page, "export const bye = 'farewell';").hover();
    await page.waitForSelector('[data-testid=line-provenance]:has-text("src/greet.ts:2")');
    const second = await why.innerText();
    expect(second).toContain('greeter · turn 2 · scripted');
    expect(second).toContain('Replied: farewell');

    // Leaving the diff hides it.
    await page.locator('[data-testid=session-page] h1').hover();
    await why.waitFor({ state: 'hidden' });
    // One file shown: one blame call, however many lines were hovered.
    expect(blameCalls).toHaveLength(1);
    expect(blameCalls[0]).toContain('file=src%2Fgreet.ts');
    await page.context().close();
  });

  it('shows it for a line reached with the keyboard too', async () => {
    const { page } = await openChanges();
    await row(page, "export const bye = 'farewell';").focus();
    await page.waitForSelector('[data-testid=line-provenance]:has-text("turn 2")');
    expect(await page.locator('[data-testid=line-provenance]').innerText()).toContain('Replied: farewell');
    await page.keyboard.press('Shift+Tab');
    await page.waitForSelector('[data-testid=line-provenance]:has-text("src/greet.ts:1")');
    expect(await page.locator('[data-testid=line-provenance]').innerText()).toContain('turn 1');
    await page.context().close();
  });

  it("opens a tab clicked before the page's script has loaded, once it has", async () => {
    // The page arrives rendered by the supervisor and its app after it: hold the app back until
    // the tab has been clicked, as a slow machine does. A button's click would be lost here.
    const login = await t.json<{ url: string }>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    let release!: () => void;
    const clicked = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    await page.route(/\/assets\/start-[^/]*\.js$/, async (route) => {
      held += 1;
      await clicked;
      await route.continue();
    });
    await page.goto(login.url);
    await page.goto(new URL(`/s/${session.id}`, login.url).toString());
    // The app cannot run before its script is served, so this click meets the rendered page alone.
    await page.click('[role=tab]:has-text("Changes")');
    expect(new URL(page.url()).hash).toBe('#changes');
    expect(await page.locator('[data-testid=diff]').count()).toBe(0);
    release();
    await page.waitForSelector('[data-testid=diff] .d2h-file-wrapper');
    expect(held).toBeGreaterThan(0);
    expect(await page.getAttribute('[role=tab]:has-text("Changes")', 'aria-selected')).toBe('true');
    // Once live, a tab switches in place and the address names it.
    await page.click('[role=tab]:has-text("Transcript")');
    await page.waitForSelector('[data-testid=transcript]');
    expect(new URL(page.url()).hash).toBe('');
    await context.close();
  });

  it('answers the API with one index per line, and refuses a path outside the work with the form to use', async () => {
    const client = t.client(repo);
    const view = await client.call('GET /api/provenance/sessions/:ref/blame', {
      params: { ref: 'greeter' },
      query: { file: 'src/greet.ts' },
    });
    expect(view.lines).toEqual([0, 1]);
    expect(view.turns.map((turn) => [turn.turn, turn.prompt])).toEqual([
      [1, 'add the greeting module'],
      [2, 'farewell'],
    ]);
    // A file the work does not change has no turn on any line.
    const untouched = await client.call('GET /api/provenance/sessions/:ref/blame', {
      params: { ref: 'greeter' },
      query: { file: 'src/app.ts' },
    });
    expect(untouched.lines).toEqual([]);
    for (const file of ['../outside.txt', '/etc/hostname', '--output=x'])
      await expect(
        client.call('GET /api/provenance/sessions/:ref/blame', {
          params: { ref: 'greeter' },
          query: { file },
        }),
      ).rejects.toThrow(/relative to its repository's root/);
  });

  it('reports no page errors', () => {
    expect(problems).toEqual([]);
  });
});
