/**
 * The page's layout at 1280 and 1920 px, in a real browser against a real supervisor (decision 192,
 * "The board in newspaper columns, the kanban's columns shrink to fit, cards show measured file
 * counts"; decision 193, "Every disabled button says why, and a landed commit is titled by its
 * prompt"): the board, the kanban and a combined review are screenshotted at both widths (under
 * `layout/` in $BATON_SCREENSHOTS or the temp folder) and measured: nothing overflows the page
 * sideways, nothing is cut, the board uses as many card columns as fit, cards show real file
 * counts, and a disabled button always carries its reason.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginCodeView } from '../../src/api/web.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';

const LONG = 10 * 60 * 1000;
const WIDTHS = [1280, 1920] as const;
const TASK = 'dedup the watcher change events';
const shots = screenshotDir('layout');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

/** The little of the DOM these checks read (the tests compile without the DOM's types). */
interface Box {
  left: number;
  right: number;
  width: number;
}
interface El {
  getBoundingClientRect(): Box;
  scrollWidth: number;
  clientWidth: number;
  innerText: string;
  textContent: string | null;
  children: ArrayLike<El>;
  getAttribute(name: string): string | null;
}
interface Doc {
  documentElement: El;
  querySelectorAll(selector: string): ArrayLike<El>;
}

/** What the page shows wrongly at this width: sideways overflow, and elements whose text is cut. */
async function layoutFaults(page: Page, selectors: string[]): Promise<string[]> {
  return page.evaluate((selectors) => {
    const document = (globalThis as unknown as { document: Doc }).document;
    const faults: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1)
      faults.push(`the page scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth}`);
    for (const selector of selectors)
      for (const el of Array.from(document.querySelectorAll(selector))) {
        const box = el.getBoundingClientRect();
        if (box.width === 0) continue;
        if (el.scrollWidth > el.clientWidth + 1)
          faults.push(`${selector} "${el.innerText.trim()}" is cut: ${el.scrollWidth} > ${el.clientWidth}`);
        if (box.right > doc.clientWidth + 1)
          faults.push(`${selector} "${el.innerText.trim()}" ends past the page at ${box.right}`);
      }
    return faults;
  }, selectors);
}

/** Disabled buttons without a reason a person can read (a tooltip). */
async function silentDisabled(page: Page): Promise<string[]> {
  return page.$$eval('button:disabled', (buttons) =>
    (buttons as unknown as El[])
      .filter((b) => (b.getAttribute('title') ?? '').trim() === '')
      .map((b) => b.textContent ?? ''),
  );
}

describe('the page at 1280 and 1920 px', () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1', BATON_MAX_CONCURRENT: '6' });
  let repo: string;
  afterAll(() => t.cleanup());

  beforeAll(async () => {
    repo = t.repo('app', {
      'src/watcher.ts': 'export function watch(path: string) {\n  return path;\n}\n',
      'src/ipc.ts':
        "import { watch } from './watcher.js';\n\nexport function handle(p: string) {\n  return watch(p);\n}\n",
      'README.md': '# App\n',
    });
    const dispatch = (name: string, prompt: string, steps: unknown[]) =>
      t.ok(['dispatch', prompt, '--name', name, '--script', t.script(steps)], { cwd: repo });
    // Started from a task: its prompt is the task's title, which the card must not show twice.
    await t.ok(['task', 'add', TASK], { cwd: repo });
    await t.ok(['task', 'add', 'move the configuration loader to the settings module'], { cwd: repo });
    await t.ok(
      [
        'task',
        'start',
        '1',
        '--agent',
        'scripted',
        '--name',
        'dedup-watcher-events',
        '--script',
        t.script([{ edit: { path: 'src/watcher.ts', old: 'return path;', new: 'return dedup(path);' } }]),
      ],
      { cwd: repo },
    );
    await dispatch('ipc-close-handler', 'close the IPC handler with the watcher', [
      {
        edit: {
          path: 'src/ipc.ts',
          old: '  return watch(p);\n}\n',
          new: '  return watch(p);\n}\n\nexport function close() {\n  return true;\n}\n',
        },
      },
    ]);
    // Coupled with the two above, and still working: its group cannot land yet.
    await dispatch('watcher-tests', 'test the watcher', [
      {
        write: {
          path: 'test/watcher.test.ts',
          content: "import { watch } from '../src/watcher';\nwatch('x');\n",
        },
      },
      { say: 'Writing more tests.' },
      { sleep: LONG },
    ]);
    await dispatch('bench-runner', 'run the benchmarks', [{ say: 'Running.' }, { sleep: LONG }]);
    await dispatch('changelog', 'write the changelog', [{ ask: 'Which release is next?' }]);
    await dispatch('rename-config-keys', 'rename the configuration keys', [
      { ask: 'Keep the old keys as aliases?' },
    ]);
    await Promise.all([
      t.waitForState('dedup-watcher-events', 'ready_for_review'),
      t.waitForState('ipc-close-handler', 'ready_for_review'),
      t.waitForEvent('watcher-tests', (e) => e.type === 'message.added' && e.role === 'assistant'),
      t.waitForEvent('bench-runner', (e) => e.type === 'message.added' && e.role === 'assistant'),
      t.waitForState('changelog', 'needs_input'),
      t.waitForState('rename-config-keys', 'needs_input'),
    ]);
  }, 120_000);

  async function open(width: number, path = '/', javaScript = true): Promise<Page> {
    const login = await t.json<LoginCodeView>(['ui']);
    const context = await browser.newContext({
      viewport: { width, height: 1000 },
      javaScriptEnabled: javaScript,
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /hydrat|Minified React error/i.test(message.text()))
        problems.push(`console error: ${message.text()}`);
    });
    await page.goto(login.url);
    if (path !== '/') await page.goto(new URL(path, page.url()).href);
    return page;
  }

  it('board: as many card columns as fit, names whole, the task once, real file counts', async () => {
    for (const width of WIDTHS) {
      const page = await open(width);
      await page.waitForSelector('[data-testid=connection]:has-text("Live")');
      const card = (name: string) => page.locator(`.card:has(.card-name:text-is("${name}"))`);
      // The counts arrive with the page's first answer about changes.
      await card('dedup-watcher-events').locator('[data-testid=files]:text-is("1 file")').waitFor();
      await card('ipc-close-handler').locator('[data-testid=files]:text-is("1 file")').waitFor();
      expect(await page.locator('.card-foot').allInnerTexts()).not.toContainEqual(
        expect.stringContaining('…'),
      );

      // The name has the head to itself; the task's title is shown once, beside nothing.
      const dedup = await card('dedup-watcher-events').innerText();
      expect(dedup.split(TASK).length - 1).toBe(1);
      expect(await card('dedup-watcher-events').locator('[data-testid=task-tag]').innerText()).toBe(
        `(${TASK})`,
      );

      const columns = await page.$$eval(
        '.card',
        (cards) =>
          new Set((cards as unknown as El[]).map((c) => Math.round(c.getBoundingClientRect().left))).size,
      );
      // Six cards in groups of two: a grid per group used two columns whatever the width.
      expect(columns).toBeGreaterThanOrEqual(width >= 1920 ? 3 : 2);
      expect(await layoutFaults(page, ['.card-name', '.card-head .chip', '.card-foot', 'button'])).toEqual(
        [],
      );
      expect(await silentDisabled(page)).toEqual([]);
      await shot(page, shots, `board-${width}`);
      await page.context().close();
    }
  });

  it('board without JavaScript: the server-rendered cards carry the measured file counts', async () => {
    const page = await open(1280, '/', false);
    const foot = page.locator('.card:has(.card-name:text-is("dedup-watcher-events")) .card-foot');
    expect(await foot.innerText()).toMatch(/^1 file\b/);
    expect(await page.locator('.card-foot').allInnerTexts()).not.toContainEqual(expect.stringContaining('…'));
    await page.context().close();
  });

  it('kanban: all six columns on the page, and the add button names its real key', async () => {
    for (const width of WIDTHS) {
      const page = await open(width, '/tasks');
      await page.waitForSelector('[data-testid=kanban] [data-task-id]');
      const kanban = await page.$eval('[data-testid=kanban]', (found) => {
        const el = found as unknown as El;
        return {
          scroll: el.scrollWidth,
          client: el.clientWidth,
          right: el.getBoundingClientRect().right,
          columns: Array.from(el.children).map((c) => c.getBoundingClientRect().right),
        };
      });
      expect(kanban.columns).toHaveLength(6);
      expect(kanban.scroll).toBeLessThanOrEqual(kanban.client + 1);
      // The Done column ends inside the kanban, and the kanban inside the window.
      expect(Math.max(...kanban.columns)).toBeLessThanOrEqual(kanban.right + 1);
      expect(kanban.right).toBeLessThanOrEqual(width);
      expect(
        await layoutFaults(page, ['.kcolumn-title', '.kcard-title', '.kcard', '[data-testid=task-add]']),
      ).toEqual([]);
      expect(await silentDisabled(page)).toEqual([]);
      await shot(page, shots, `kanban-${width}`);
      if (width === WIDTHS[0]) {
        // The key on the button is the one that opens the form (c is the Cost page's).
        const key = await page.locator('[data-testid=task-add] kbd').innerText();
        expect(key).toBe('a');
        await page.keyboard.press(key);
        await page.locator('[data-testid=task-save]').waitFor();
        expect(new URL(page.url()).pathname).toBe('/tasks');
      }
      await page.context().close();
    }
  });

  it('review: a group with a member still working says so beside its disabled Merge group', async () => {
    for (const width of WIDTHS) {
      const page = await open(width, '/review');
      const group = page.locator('[data-testid=review-group]:has-text("dedup-watcher-events")');
      await group.waitFor();
      await group.click();
      await page.waitForSelector('[data-testid=review-page]');
      const button = page.locator('[data-testid=group-merge-button]');
      await button.waitFor();
      expect(await button.isDisabled()).toBe(true);
      const why = 'watcher-tests is still working: merge when it finishes or is stopped';
      expect(await button.getAttribute('title')).toBe(why);
      expect(await page.locator('[data-testid=group-merge-why]').innerText()).toBe(why);
      expect(await silentDisabled(page)).toEqual([]);
      expect(await layoutFaults(page, ['.review-head', '[data-testid=group-merge-button]'])).toEqual([]);
      await shot(page, shots, `review-${width}`);
      await page.context().close();
    }
  });
});
