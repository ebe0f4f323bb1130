/**
 * The Tasks page (decision 110, "The kanban is a page of its own") in a real browser (Debian Chromium)
 * against a real supervisor and real repositories: cards moved with the mouse (HTML5 drag and drop) and
 * the keyboard are seen by the CLI (`task ls --json`, and live by `task ls --watch`); a move made in
 * the CLI reaches an open page through the stream without the page asking for the board again; tasks
 * are added, edited and started from the page, and bad input is refused with the supervisor's reason.
 */
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskBoard, TaskCard, TaskDetail } from '../../src/api/tasks.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';
import { addTask } from '../support/tasks.js';

const shots = screenshotDir('tasks');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe('the Tasks page', () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1' });
  let repo: string;
  let watcher: TaskCard;
  let ipc: TaskCard;
  let docs: TaskCard;

  beforeAll(async () => {
    repo = t.repo('shop', {
      'README.md': '# Shop\n',
      'src/watcher.ts': 'export const w = 1;\n',
      'docs/guide.md': '# Guide\n',
    });
    watcher = await addTask(t, repo, 'the watcher', '--tracker', '#432', '--scope', 'src/**');
    ipc = await addTask(
      t,
      repo,
      'IPC handlers',
      '--tracker',
      'https://tracker.example/browse/ABC-12',
      '--after',
      String(watcher.id),
    );
    docs = await addTask(t, repo, 'the guide', '--scope', 'docs/**');
    await t.ok(['decide', String(watcher.id), 'keep the old onChange signature'], { cwd: repo });
    await t.ok(['note', String(watcher.id), 'fixtures conflict'], { cwd: repo });
    await t.ok(['note', String(watcher.id), 'see decision 1'], { cwd: repo });
  });
  afterAll(() => t.cleanup());

  /** A logged-in page on /tasks, its requests for the whole board counted. */
  async function open(): Promise<{ page: Page; boardFetches: () => number }> {
    const login = await t.json<{ url: string }>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // A refused request is logged by the browser itself; the tests look at what the page says of it.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(`console: ${message.text()}`);
    });
    let fetches = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/tasks' && request.method() === 'GET') fetches++;
    });
    await page.goto(`${login.url}&next=${encodeURIComponent('/tasks')}`);
    await page.waitForSelector('[data-testid=connection]:has-text("Live")');
    await page.waitForSelector('[data-testid=kanban]');
    return { page, boardFetches: () => fetches };
  }

  const cardOn = (page: Page, id: number) => page.locator(`[data-testid=task-card][data-task-id="${id}"]`);
  const column = (page: Page, name: string) => page.locator(`[data-testid=task-column][data-column=${name}]`);
  const idsIn = async (page: Page, name: string) =>
    (
      await Promise.all(
        (await column(page, name).locator('[data-testid=task-card]').all()).map((c) =>
          c.getAttribute('data-task-id'),
        ),
      )
    ).map(Number);
  const focused = (page: Page) => page.locator('[data-testid=task-card]:focus').getAttribute('data-task-id');
  const cliColumn = async (name: string): Promise<number[]> =>
    (await t.json<TaskBoard>(['task', 'ls'], { cwd: repo })).columns
      .find((c) => c.column === name)
      ?.tasks.map((c) => c.id) ?? [];

  /** `baton task ls --watch`, and a wait for a line it prints. */
  function watch(): { child: ChildProcess; printed: (pattern: RegExp) => Promise<void> } {
    const child = t.spawn(['task', 'ls', '--watch'], { cwd: repo });
    let output = '';
    const waiting = new Set<() => void>();
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const check of waiting) check();
    });
    const printed = (pattern: RegExp): Promise<void> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(output)) {
            waiting.delete(check);
            resolve();
          }
        };
        child.once('exit', (code) =>
          reject(
            new Error(`task ls --watch exited (${code}) before printing ${pattern}; it printed:\n${output}`),
          ),
        );
        waiting.add(check);
        check();
      });
    return { child, printed };
  }

  it('shows the six columns and each card’s tracker (a link when it is an address), scope, dependencies and decision and note counts', async () => {
    const { page } = await open();
    expect(await page.locator('[data-testid=task-column] .kcolumn-title').allInnerTexts()).toEqual([
      'BACKLOG 3',
      'READY 0',
      'RUNNING 0',
      'NEEDS INPUT 0',
      'REVIEW 0',
      'DONE 0',
    ]);
    expect(await idsIn(page, 'backlog')).toEqual([watcher.id, ipc.id, docs.id]);
    const first = cardOn(page, watcher.id);
    expect(await first.locator('.kcard-title').innerText()).toBe('the watcher');
    expect(await first.locator('[data-testid=task-tracker]').innerText()).toBe('#432');
    expect(await first.locator('[data-testid=task-tracker] a').count()).toBe(0);
    expect(await first.locator('.kcard-scope code').allInnerTexts()).toEqual(['src/**']);
    expect(await first.locator('[data-testid=task-entries]').innerText()).toBe('1 decision · 2 notes');
    const second = cardOn(page, ipc.id);
    expect(await second.locator('[data-testid=task-tracker] a').getAttribute('href')).toBe(
      'https://tracker.example/browse/ABC-12',
    );
    expect(await second.locator('[data-testid=task-after]').innerText()).toBe(
      `after #${watcher.id} · waiting for #${watcher.id}`,
    );
    // A decision recorded in the CLI is counted on the open page, from its event.
    await t.ok(['decide', String(ipc.id), 'one handler per channel'], { cwd: repo });
    await second.locator('[data-testid=task-entries]:has-text("1 decision · 0 notes")').waitFor();
    await shot(page, shots, 'kanban');
    await page.context().close();
  });

  it('moves a card dragged with the mouse, and the CLI sees it (task ls --json, and live in task ls --watch)', async () => {
    const { page } = await open();
    const { printed } = watch();
    await printed(/Done \(0\)/);
    await cardOn(page, docs.id).dragTo(column(page, 'ready'));
    await page.waitForSelector(`[data-testid=task-column][data-column=ready] [data-task-id="${docs.id}"]`);
    await printed(new RegExp(`task ${docs.id}: backlog → ready \\(by hand\\)`));
    expect(await cliColumn('ready')).toEqual([docs.id]);
    // Dropped above the first card of a column, it goes first.
    const target = cardOn(page, docs.id);
    await cardOn(page, ipc.id).dragTo(target, { targetPosition: { x: 20, y: 3 } });
    await printed(new RegExp(`task ${ipc.id}: backlog → ready \\(by hand\\)`));
    expect(await cliColumn('ready')).toEqual([ipc.id, docs.id]);
    expect(await idsIn(page, 'ready')).toEqual([ipc.id, docs.id]);
    // And back down within the column, below the other.
    const box = await cardOn(page, docs.id).boundingBox();
    await cardOn(page, ipc.id).dragTo(cardOn(page, docs.id), {
      targetPosition: { x: 20, y: (box?.height ?? 10) - 3 },
    });
    await page.waitForSelector(
      `[data-column=ready] .kcolumn-cards > div:last-child [data-task-id="${ipc.id}"]`,
    );
    await expect.poll(() => cliColumn('ready')).toEqual([docs.id, ipc.id]);
    await page.context().close();
  });

  it('moves the focused card with the keyboard, keeps it focused, and the CLI sees each move', async () => {
    const { page } = await open();
    await cardOn(page, watcher.id).focus();
    await page.keyboard.press('Shift+ArrowRight');
    await page.waitForSelector(`[data-column=ready] [data-task-id="${watcher.id}"]`);
    // It went in at the height it had (the top), and stays focused for the next key.
    expect(await focused(page)).toBe(String(watcher.id));
    await expect.poll(() => cliColumn('ready')).toEqual([watcher.id, docs.id, ipc.id]);
    await page.keyboard.press('Shift+ArrowDown');
    await expect.poll(() => cliColumn('ready')).toEqual([docs.id, watcher.id, ipc.id]);
    await page.keyboard.press('5');
    await page.waitForSelector(`[data-column=review] [data-task-id="${watcher.id}"]`);
    expect(
      (await t.json<{ task: TaskCard }>(['task', 'show', String(watcher.id)], { cwd: repo })).task,
    ).toMatchObject({ column: 'review', columnSetBy: 'hand' });
    expect(await focused(page)).toBe(String(watcher.id));
    // Arrows move the focus, not the card; `l` does not leave for the Landing page while a card has it.
    await page.keyboard.press('ArrowLeft');
    expect(await focused(page)).toBe(String(docs.id));
    await page.keyboard.press('l');
    expect(await focused(page)).toBe(String(watcher.id));
    expect(new URL(page.url()).pathname).toBe('/tasks');
    // The keys are listed in the page's help.
    await page.keyboard.press('?');
    expect(await page.locator('[data-testid=kanban-help]').innerText()).toContain('Shift + ← →');
    await page.context().close();
  });

  it('shows a move made in the CLI on every open page, live, without fetching the board again', async () => {
    const one = await open();
    const two = await open();
    const fetched = [one.boardFetches(), two.boardFetches()];
    await t.ok(['task', 'move', String(docs.id), 'done'], { cwd: repo });
    await one.page.waitForSelector(`[data-column=done] [data-task-id="${docs.id}"]`);
    await two.page.waitForSelector(`[data-column=done] [data-task-id="${docs.id}"]`);
    // A move on one page reaches the other.
    await cardOn(one.page, ipc.id).focus();
    await one.page.keyboard.press('1');
    await two.page.waitForSelector(`[data-column=backlog] [data-task-id="${ipc.id}"]`);
    expect([one.boardFetches(), two.boardFetches()]).toEqual(fetched);
    await one.page.context().close();
    await two.page.context().close();
  });

  it('adds a task from the page, refuses bad input with the supervisor’s reason and adds nothing, and edits a task', async () => {
    await t.ok(['task', 'move', String(watcher.id), 'review'], { cwd: repo });
    const { page } = await open();
    const before = (await t.json<TaskBoard>(['task', 'ls'], { cwd: repo })).columns.flatMap(
      (c) => c.tasks,
    ).length;
    await page.keyboard.press('a');
    const form = page.locator('[data-testid=task-form]');
    await form.locator('input[name=title]').fill('IPC tests');
    await form.locator('textarea[name=scope]').fill('test/ipc/**\nsrc/ipc.ts');
    await form.locator('input[name=tracker]').fill('not a reference!');
    await form.locator('input[name=after]').fill(`#${ipc.id}`);
    expect(await form.locator('input[name=project]').inputValue()).toBe(watcher.projectRoot);
    await form.locator('[data-testid=task-save]').click();
    expect(await page.locator('[data-testid=task-form-error]').innerText()).toMatch(/not a reference/);
    await form.locator('input[name=tracker]').fill('#433');
    await form.locator('input[name=after]').fill('#999');
    await form.locator('[data-testid=task-save]').click();
    await page.locator('[data-testid=task-form-error]:has-text("999")').waitFor();
    expect(
      (await t.json<TaskBoard>(['task', 'ls'], { cwd: repo })).columns.flatMap((c) => c.tasks).length,
    ).toBe(before);

    // src/ipc.ts is in the scope of the watcher, which is under review: refused, then let through on purpose.
    await form.locator('input[name=after]').fill(`#${ipc.id}`);
    await form.locator('[data-testid=task-save]').click();
    await page
      .locator(`[data-testid=task-form-error]:has-text("overlaps running task ${watcher.id} (the watcher)")`)
      .waitFor();
    expect(
      (await t.json<TaskBoard>(['task', 'ls'], { cwd: repo })).columns.flatMap((c) => c.tasks).length,
    ).toBe(before);
    await form.locator('input[name=force]').check();
    await form.locator('[data-testid=task-save]').click();
    await form.waitFor({ state: 'detached' });
    const added = (await t.json<TaskBoard>(['task', 'ls'], { cwd: repo })).columns
      .flatMap((c) => c.tasks)
      .find((c) => c.title === 'IPC tests');
    expect(added).toMatchObject({
      column: 'backlog',
      tracker: '#433',
      scope: ['test/ipc/**', 'src/ipc.ts'],
      after: [ipc.id],
    });
    await cardOn(page, added?.id ?? 0).waitFor();

    await cardOn(page, added?.id ?? 0)
      .locator('[data-testid=task-edit]')
      .click();
    await form.locator('input[name=title]').fill('IPC tests, all channels');
    await form.locator('input[name=after]').fill('');
    await form.locator('[data-testid=task-save]').click();
    await cardOn(page, added?.id ?? 0)
      .locator('.kcard-title:has-text("IPC tests, all channels")')
      .waitFor();
    const detail = await t.json<TaskDetail>(['task', 'show', String(added?.id)], { cwd: repo });
    expect(detail.task).toMatchObject({ title: 'IPC tests, all channels', after: [], tracker: '#433' });
    await page.context().close();
  });

  it('starts a session on a task with the agent picked, opens it, and the card shows the session and its state', async () => {
    const { page } = await open();
    await cardOn(page, docs.id).locator('[data-testid=task-start]').click();
    const form = page.locator('[data-testid=task-start-form]');
    await form.locator('select[name=agent]').selectOption('scripted');
    await form.locator('[data-testid=task-start-submit]').click();
    await page.waitForURL(/\/s\/[^/]+$/);
    const sessionId = decodeURIComponent(new URL(page.url()).pathname.slice(3));
    const session = await t.waitForState(sessionId, 'ready_for_review');
    expect(session.task?.id).toBe(docs.id);
    await page.click('a.nav-link[href="/tasks"]');
    const chip = cardOn(page, docs.id).locator('[data-testid=task-session]');
    await chip.locator(`:scope:has-text("${session.name} · ")`).waitFor();
    expect(await chip.getAttribute('class')).toContain('chip-ready_for_review');
    await page.waitForSelector(`[data-column=review] [data-task-id="${docs.id}"]`);
    await shot(page, shots, 'kanban-started');
    await chip.click();
    await page.waitForURL(`**/s/${sessionId}`);
    await page.context().close();
  });
});
