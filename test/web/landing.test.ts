/**
 * Landing work from the dashboard in a real browser (Debian Chromium) against a real supervisor:
 * scripted sessions leave real work in real repositories, the page merges them (one, a coupled
 * group, the plan's order) and follows each merge live to its result; the base branch is read
 * back with git. The repository's check waits on a FIFO the test writes to, so the page can be
 * seen mid-check and a second merge seen waiting behind it.
 */
import { execFileSync } from 'node:child_process';
import { constants, readFileSync, writeFileSync } from 'node:fs';
import { open as openFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';
import { configure, finishedSession } from '../support/landing.js';

const shots = screenshotDir('landing');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe('landing work from the dashboard', () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1' });
  let repo: string;
  let fifo: string;
  let released = false;

  beforeAll(() => {
    repo = t.repo('shop', {
      'README.md': '# Shop\n',
      'src/watcher.ts': 'export function watch(path: string) {\n  return path;\n}\n',
      'src/ipc.ts':
        "import { watch } from './watcher.js';\n\nexport function handle(p: string) {\n  return watch(p);\n}\n",
    });
    fifo = join(t.root, 'gate');
    execFileSync('mkfifo', [fifo]);
    // Work with slow.txt waits (once) for the test to write to the FIFO; broken.txt fails the check.
    const check =
      'if [ -e slow.txt ] && [ ! -e "$2" ]; then read go < "$1"; touch "$2"; fi; if [ -e broken.txt ]; then echo "test broken: broken.txt exists"; exit 1; fi; echo all good';
    configure(t, repo, {
      merge: {
        check: ['sh', '-c', check, 'sh', fifo, join(t.root, 'gate-passed')],
        checkTimeoutSeconds: 120,
      },
    });
  });
  afterAll(async () => {
    // A failed test may leave the check waiting: let it go (without waiting for a reader) before the supervisor is killed.
    if (!released)
      await (await openFile(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined))?.close();
    t.cleanup();
  });

  async function open(path: string): Promise<Page> {
    const login = await t.json<{ url: string }>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => problems.push(`dialog: ${dialog.message()}`));
    await page.goto(`${login.url}&next=${encodeURIComponent(path)}`);
    await page.waitForSelector('[data-testid=connection]:has-text("Live")');
    return page;
  }

  /** An attribute of every element the locator finds, in page order. */
  const attrs = async (locator: Locator, name: string) =>
    Promise.all((await locator.all()).map((e) => e.getAttribute(name)));
  const progress = (page: Page, phase?: string) =>
    page.locator(`[data-testid=merge-progress]${phase === undefined ? '' : `[data-phase=${phase}]`}`);
  const askMerge = async (page: Page, squash = false) => {
    await page.click('[data-testid=merge-button]');
    await page.waitForSelector('[data-testid=merge-form]');
    if (squash) await page.check('[data-testid=merge-squash]');
    await page.click('[data-testid=merge-submit]');
  };

  it('merges a session from its page, shows each step live, queues a second one behind it, and both land', async () => {
    const feat = await finishedSession(t, repo, 'feat', {
      committed: { 'feature.txt': 'feature\n' },
      uncommitted: { 'slow.txt': 'slow\n', 'notes.txt': 'uncommitted notes\n' },
    });
    const second = await finishedSession(t, repo, 'second', { committed: { 'second.txt': 'second\n' } });
    const before = t.git(repo, 'rev-parse', 'main');

    const page = await open(`/s/${feat.id}`);
    await page.waitForSelector('[data-testid=session-page][data-state=ready_for_review]');
    await askMerge(page);
    // The check is held on the FIFO: the page shows it running, with its command.
    await progress(page, 'checking').waitFor();
    expect(await page.locator('[data-testid=merge-status]').innerText()).toMatch(
      /^Checking: sh -c .*read go/,
    );
    expect(await page.locator('.merge-step.step-done').allInnerTexts()).toEqual(['Queued', 'Merging']);
    expect(await page.locator('[data-testid=merge-button]').innerText()).toBe('Merging…');
    expect(await page.locator('[data-testid=merge-button]').isDisabled()).toBe(true);
    await shot(page, shots, 'session-checking');

    // A second merge of the same repository waits behind it, and says so.
    const other = await open(`/s/${second.id}`);
    await askMerge(other);
    await progress(other, 'queued').waitFor();
    expect(await progress(other).locator('.merge-progress-head strong').innerText()).toBe(
      'Queued · position 2',
    );
    expect(await other.locator('[data-testid=merge-status]').innerText()).toBe(
      'Waiting: 1 merge of shop ahead of it.',
    );

    // The Landing page shows the queue as it is.
    const landing = await open('/landing');
    await landing.waitForSelector('[data-testid=queue-row] >> nth=1');
    expect(await landing.locator('[data-testid=queue-row] .queue-position').allInnerTexts()).toEqual([
      '1',
      '2',
    ]);
    expect(
      await attrs(landing.locator('[data-testid=queue-row] [data-testid=merge-progress]'), 'data-phase'),
    ).toEqual(['checking', 'queued']);
    await shot(landing, shots, 'landing-queue');

    await writeFile(fifo, 'go\n');
    released = true;
    await progress(page, 'landed').waitFor();
    // Landed: the session is removed, and its page says what landed instead.
    await page.waitForSelector('[data-testid=landed-session]');
    await page.waitForSelector('[data-testid=merge-status]:has-text("the check passed")');
    // The commit it names is feat's landing (second may have landed on top of it by now).
    const landedAt = await page.locator('[data-testid=merge-commit]').innerText();
    expect(t.git(repo, 'show', `${landedAt}:notes.txt`)).toBe('uncommitted notes');
    expect(t.git(repo, 'merge-base', '--is-ancestor', landedAt, 'main')).toBe('');
    expect(await page.locator('[data-testid=merge-status]').innerText()).toMatch(
      /^Landed feat on main at [0-9a-f]{12}; the check passed in [\d.]+ s\.$/,
    );
    expect(t.git(repo, 'show', 'main:feature.txt')).toBe('feature');
    expect(t.git(repo, 'show', 'main:notes.txt')).toBe('uncommitted notes');
    expect(t.git(repo, 'merge-base', '--is-ancestor', before, 'main')).toBe('');
    await shot(page, shots, 'session-landed');

    await progress(other, 'landed').waitFor();
    expect(t.git(repo, 'show', 'main:second.txt')).toBe('second');
    expect(t.git(repo, 'status', '--porcelain')).toBe('');

    await landing.waitForSelector('[data-testid=merge-queue]:has-text("No merge is running or waiting.")');
    await landing.waitForSelector('[data-testid=recent-row] >> nth=1');
    expect(await attrs(landing.locator('[data-testid=recent-row]'), 'data-outcome')).toEqual([
      'landed',
      'landed',
    ]);
    expect(await landing.locator('[data-testid=recent-row] .recent-names').allInnerTexts()).toEqual([
      'second → main',
      'feat → main',
    ]);
    for (const p of [page, other, landing]) await p.context().close();
  });

  it('a failing check shows "Not landed" with the end of its output, and the base stays where it was', async () => {
    const bad = await finishedSession(t, repo, 'bad', { uncommitted: { 'broken.txt': 'x\n' } });
    const before = t.git(repo, 'rev-parse', 'main');
    const page = await open(`/s/${bad.id}`);
    await askMerge(page, true);
    await progress(page, 'failed').waitFor();
    const panel = progress(page);
    expect(await panel.locator('.merge-progress-head strong').innerText()).toBe('Not landed');
    expect(await page.locator('[data-testid=merge-status]').innerText()).toMatch(
      /^The check `sh -c .*` failed \(exit 1\); nothing was landed\.$/,
    );
    expect(await page.locator('[data-testid=merge-output]').innerText()).toBe(
      'test broken: broken.txt exists',
    );
    expect(await panel.innerText()).toContain('Sent to bad as a reply, so its agent can fix it.');
    expect(await page.locator('.merge-step.step-bad').allInnerTexts()).toEqual(['Checking', 'Not landed']);
    await shot(page, shots, 'session-not-landed');
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
    expect(t.git(repo, 'ls-tree', '--name-only', 'main')).not.toContain('broken.txt');
    await page.context().close();
  });

  it('opens a pull request against a local bare remote: without gh, a compare link, or the branch to open one by hand', async () => {
    const bare = join(t.root, 'remote.git');
    t.git(t.root, 'init', '--quiet', '--bare', bare);
    // A GitHub URL that pushes to the bare repository: nothing reaches the network.
    t.git(repo, 'remote', 'add', 'origin', 'https://github.com/octo/shop.git');
    t.git(repo, 'config', 'remote.origin.pushurl', bare);
    const propose = await finishedSession(t, repo, 'propose', {
      committed: { 'p.txt': 'p\n' },
      uncommitted: { 'q.txt': 'q\n' },
    });
    const page = await open(`/s/${propose.id}`);
    await page.click('[data-testid=pr-button]');
    await page.waitForSelector('[data-testid=pr-panel][data-status=opened]');
    const link = page.locator('[data-testid=pr-link] a');
    expect(await link.getAttribute('href')).toBe(
      'https://github.com/octo/shop/compare/main...baton/propose?expand=1',
    );
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await page.locator('[data-testid=pr-note]').innerText()).toMatch(
      /gh \(the GitHub CLI\) is not installed/,
    );
    expect(await page.locator('[data-testid=pr-panel]').innerText()).toContain(
      'Committed its uncommitted work on baton/propose.',
    );
    expect(t.git(bare, 'show', 'refs/heads/baton/propose:q.txt')).toBe('q');
    await shot(page, shots, 'pull-request');
    await page.context().close();

    // A plain bare remote: no page to link to, so the panel says where the branch is.
    t.git(repo, 'remote', 'set-url', 'origin', bare);
    t.git(repo, 'config', '--unset', 'remote.origin.pushurl');
    const byhand = await finishedSession(t, repo, 'byhand', { committed: { 'h.txt': 'h\n' } });
    const second = await open(`/s/${byhand.id}`);
    await second.click('[data-testid=pr-button]');
    await second.waitForSelector('[data-testid=pr-panel][data-status=opened]');
    expect(await second.locator('[data-testid=pr-panel]').getAttribute('data-via')).toBe('none');
    expect(await second.locator('[data-testid=pr-link]').count()).toBe(0);
    expect(await second.locator('[data-testid=pr-note]').innerText()).toBe(
      'Not opened with gh: gh (the GitHub CLI) is not installed; the branch baton/byhand is pushed to origin: open a pull request there by hand.',
    );
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/byhand')).toBe(
      t.git(repo, 'rev-parse', 'baton/byhand'),
    );
    await second.context().close();
  });

  it('an error says why and changes nothing: a dirty main checkout, a session with nothing to merge', async () => {
    await t.ok(
      ['dispatch', 'look around', '--name', 'idle', '--script', t.script([{ say: 'Nothing to change.' }])],
      { cwd: repo },
    );
    const idle = await t.waitForState('idle', 'ready_for_review');
    const before = t.git(repo, 'rev-parse', 'main');
    writeFileSync(join(repo, 'README.md'), '# my own edit\n');
    const page = await open(`/s/${idle.id}`);
    await askMerge(page);
    await page.waitForSelector('.toast-error:has-text("which has uncommitted changes (README.md)")');
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# my own edit\n');
    t.git(repo, 'checkout', '--', 'README.md');
    // The form is still open: asking again, now with a clean checkout.
    await page.click('[data-testid=merge-submit]');
    await page.waitForSelector('.toast-error:has-text("idle has nothing to merge")');
    expect(await progress(page).count()).toBe(0);
    expect(await page.locator('[data-testid=merge-button]').isEnabled()).toBe(true);
    expect(t.git(repo, 'rev-parse', 'main')).toBe(before);
    await page.context().close();
  });

  it('lands a coupled group from its combined review page, all members in the planned order', async () => {
    const dispatch = async (name: string, steps: unknown[]): Promise<SessionView> => {
      await t.ok(['dispatch', `work on ${name}`, '--name', name, '--script', t.script(steps)], { cwd: repo });
      return t.waitForState(name, 'ready_for_review');
    };
    await dispatch('watcher', [
      { edit: { path: 'src/watcher.ts', old: 'return path;', new: 'return path.trim();' } },
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
    const before = t.git(repo, 'rev-parse', 'main');
    // The review API takes a member's name for its group, as the session page's link does.
    const page = await open('/review/shop/watcher');
    await page.waitForSelector('[data-testid=review-page]');
    expect(await page.locator('.review-member [data-testid=session-tag]').allInnerTexts()).toEqual([
      'watcher',
      'ipc',
    ]);
    await page.click('[data-testid=group-merge-button]');
    await page.waitForSelector('[data-testid=merge-form]:has-text("in the order with the fewest conflicts")');
    await page.click('[data-testid=merge-submit]');
    await progress(page, 'landed').waitFor();
    await page.waitForSelector('[data-testid=merge-status]:has-text("the check passed")');
    expect(await page.locator('[data-testid=merge-status]').innerText()).toMatch(
      /^Landed watcher, ipc on main at [0-9a-f]{12}; the check passed/,
    );
    await shot(page, shots, 'group-landed');
    expect(t.git(repo, 'show', 'main:src/watcher.ts')).toContain('return path.trim();');
    expect(t.git(repo, 'show', 'main:src/ipc.ts')).toContain('export function close()');
    // Planned: watcher first (a fast-forward: main had not moved since it started), then ipc merged onto it.
    expect(t.git(repo, 'log', '-1', '--format=%s', 'main')).toBe('Merge session ipc into main: work on ipc');
    expect(t.git(repo, 'show', 'main^1:src/watcher.ts')).toContain('return path.trim();');
    expect(t.git(repo, 'rev-parse', 'main^1^')).toBe(before);
    const { sessions } = await t.client().call('GET /api/sessions');
    expect(sessions.map((s) => s.name)).not.toContain('watcher');
    await page.context().close();
  });

  it('the Landing page plans another repository’s ready sessions and merges a step, then the rest in order', async () => {
    const lib = t.repo('lib', { 'README.md': '# lib\n' });
    const session = (name: string, files: Record<string, string>) =>
      finishedSession(t, lib, name, { committed: files });
    await session('one', { 'README.md': '# one\n' });
    await session('two', { 'README.md': '# two\n' });
    await session('three', { 'three.txt': '3\n' });
    const page = await open('/landing');
    await page.selectOption('.plan-project', { label: 'lib' });
    const steps = page.locator('[data-testid=plan-step]');
    await page.waitForSelector('[data-testid=plan-step][data-session=two]');
    expect(await attrs(steps, 'data-session')).toEqual(['three', 'one', 'two']);
    expect(await steps.nth(2).innerText()).toContain('expect conflicts in README.md; overlaps one');
    await shot(page, shots, 'plan');

    await steps.nth(0).locator('[data-testid=plan-merge-step]').click();
    await page.locator('[data-testid=merge-plan] [data-testid=merge-progress][data-phase=landed]').waitFor();
    expect(t.git(lib, 'show', 'main:three.txt')).toBe('3');
    // Planned again once it landed: the rest, in order.
    await page.waitForSelector('[data-testid=plan-step][data-session=three]', { state: 'detached' });
    expect(await attrs(steps, 'data-session')).toEqual(['one', 'two']);
    const tip = t.git(lib, 'rev-parse', 'main');
    await page.click('[data-testid=plan-merge-all]');
    const result = page.locator(
      '[data-testid=merge-plan] [data-testid=merge-progress][data-phase=conflicted]',
    );
    await result.waitFor();
    expect(await result.locator('[data-testid=merge-files]').innerText()).toContain('README.md');
    expect(await result.locator('.merge-progress-head strong').innerText()).toBe('Not landed');
    expect(t.git(lib, 'rev-parse', 'main')).toBe(tip);
    await shot(page, shots, 'plan-conflicted');
    await page.context().close();
  });
});
