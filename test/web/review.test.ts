/**
 * The combined review in a real browser (Debian Chromium) against a real supervisor: three
 * scripted sessions make coupled changes, `baton review 1 --open` gives the link, and the page
 * shows who wrote each hunk, takes an approval and sends a comment that reaches the session.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupReview } from '../../src/api/review.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';

const shots = screenshotDir('review');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe('the combined review page', () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1' });
  let repo: string;
  afterAll(() => t.cleanup());

  beforeAll(async () => {
    repo = t.repo('app', {
      'src/watcher.ts': 'export function watch(path: string) {\n  return path;\n}\n',
      'src/ipc.ts':
        "import { watch } from './watcher.js';\n\nexport function handle(p: string) {\n  return watch(p);\n}\n",
      'docs/guide.md': '# Guide\n',
    });
    const dispatch = async (name: string, steps: unknown[]) => {
      await t.ok(['dispatch', `work on ${name}`, '--name', name, '--script', t.script(steps)], { cwd: repo });
      await t.waitForState(name, 'ready_for_review');
    };
    await dispatch('watcher', [
      { edit: { path: 'src/watcher.ts', old: 'return path;', new: 'return debounce(path);' } },
    ]);
    await dispatch('ipc', [
      {
        edit: {
          path: 'src/ipc.ts',
          old: '  return watch(p);\n}\n',
          new: '  return watch(p);\n}\n\nexport function close() {\n  return true;\n}\n',
        },
      },
    ]);
    await dispatch('tests', [
      {
        write: {
          path: 'test/watcher.test.ts',
          content: "import { watch } from '../src/watcher';\nwatch('x');\n",
        },
      },
    ]);
    await dispatch('docs', [{ edit: { path: 'docs/guide.md', old: '# Guide', new: '# The guide' } }]);
  }, 120_000);

  async function open(url: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => problems.push(`dialog: ${dialog.message()}`));
    await page.goto(url);
    return page;
  }

  it('lists the groups with their reasons, reached from the board', async () => {
    const login = await t.json<{ url: string }>(['ui']);
    const page = await open(login.url);
    await page.click('nav a:has-text("Review")');
    await page.waitForSelector('[data-testid=review-group]');
    const groups = page.locator('[data-testid=review-group]');
    expect(await groups.count()).toBe(2);
    const first = await groups.nth(0).innerText();
    expect(first).toContain('Group 1');
    expect(first).toContain('src/ipc.ts (ipc) imports src/watcher.ts (watcher)');
    expect(first).toContain('test/watcher.test.ts (tests) tests src/watcher.ts (watcher)');
    expect(await groups.nth(1).innerText()).toContain('docs');
    await shot(page, shots, 'groups');
    await groups.nth(0).click();
    await page.waitForSelector('[data-testid=review-page]');
    expect(new URL(page.url()).pathname).toBe('/review/app/1');
    await page.context().close();
  });

  it('opens from `baton review 1 --open`, labels each hunk with its session, takes an approval and sends a comment that reaches the session', async () => {
    const opened = await t.json<{ url: string; opened: boolean }>(['review', '1', '--open'], { cwd: repo });
    expect(opened.opened).toBe(false);
    const page = await open(opened.url);
    await page.waitForSelector('[data-testid=review-page]');
    expect(new URL(page.url()).pathname).toBe('/review/app/1');

    const file = (path: string) => page.locator(`[data-testid=review-file][data-path="${path}"]`);
    expect(
      await file('src/watcher.ts').locator('[data-testid=review-hunk]').getAttribute('data-sessions'),
    ).toBe('watcher');
    expect(await file('src/ipc.ts').locator('[data-testid=review-hunk]').getAttribute('data-sessions')).toBe(
      'ipc',
    );
    // The label links to the writer's transcript.
    const tag = file('src/ipc.ts').locator('[data-testid=review-hunk] [data-testid=session-tag]');
    expect(await tag.innerText()).toBe('ipc');
    expect(await tag.getAttribute('href')).toMatch(/^\/s\/\w+$/);
    expect(
      await file('src/ipc.ts').locator('[data-testid=review-hunk] .d2h-diff-tbody').innerText(),
    ).toContain('export function close()');
    // Hovering a line of a file one session wrote shows the turn that wrote it, and its prompt.
    await file('src/watcher.ts')
      .locator('tr', { has: page.locator('.d2h-code-line-ctn:has-text("return debounce(path);")') })
      .hover();
    await page.waitForSelector('[data-testid=line-provenance]:has-text("watcher · turn 1")');
    expect(await page.locator('[data-testid=line-provenance]').innerText()).toContain(
      'Asked: work on watcher',
    );

    await file('src/watcher.ts').locator('button:has-text("Approve")').click();
    await page.waitForSelector('[data-testid=review-file][data-path="src/watcher.ts"][data-state=approved]');
    // An approved file folds away; its arrow opens it again.
    expect(await file('src/watcher.ts').locator('[data-testid=review-hunk]').count()).toBe(0);
    await file('src/watcher.ts').locator('button.fold').click();
    expect(await file('src/watcher.ts').locator('[data-testid=review-hunk]').count()).toBe(1);
    const view = await t.json<GroupReview>(['review', '1'], { cwd: repo });
    expect(view.files.find((f) => f.path === 'src/watcher.ts')!.state).toBe('approved');

    const hunk = file('src/ipc.ts').locator('[data-testid=review-hunk]');
    await hunk.locator('button:has-text("Comment")').click();
    await hunk.locator('textarea').fill('close() should stop the watcher too');
    await shot(page, shots, 'group-1');
    await hunk.locator('button:has-text("Send to ipc")').click();
    await page.waitForSelector('.toast:has-text("Sent to ipc as a reply.")');
    const turn = await t.waitForEvent(
      'ipc',
      (e) => e.type === 'turn.started' && (e.prompt ?? '').includes('close() should stop the watcher too'),
    );
    expect(turn.type === 'turn.started' && turn.prompt).toContain('Review comment on src/ipc.ts, lines 6–9');

    // Requesting changes asks what to change and tells the file's writer.
    const tests = file('test/watcher.test.ts');
    await tests.locator('button:has-text("Request changes")').click();
    await tests.locator('[data-testid=request-changes] textarea').fill('assert what watch returns');
    await tests.locator('[data-testid=request-changes] button').click();
    await page.waitForSelector(
      '[data-testid=review-file][data-path="test/watcher.test.ts"][data-state=changes_requested]',
    );
    await t.waitForEvent(
      'tests',
      (e) => e.type === 'turn.started' && (e.prompt ?? '').includes('assert what watch returns'),
    );
    await page.context().close();
  });

  it("reaches a session's group from the session's page", async () => {
    const { session } = await t.client().call('GET /api/sessions/:ref', { params: { ref: 'tests' } });
    const login = await t.json<{ url: string }>(['ui']);
    const page = await open(`${login.url}&next=${encodeURIComponent(`/s/${session.id}`)}`);
    await page.click('[data-testid=review-link]');
    await page.waitForSelector('[data-testid=review-page]');
    expect(await page.locator('.review-head h1').innerText()).toContain('Group 1');
    expect(await page.locator('[data-testid=review-file]').count()).toBe(3);
    await page.context().close();
  });
});
