/**
 * The dashboard in a real browser (Debian Chromium) against a real supervisor running scripted
 * sessions. Screenshots land in $BATON_SCREENSHOTS (or the temp dir) under `dashboard/`.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { LoginCodeView } from '../../src/api/web.js';
import { openDb } from '../../src/store/db.js';
import { SessionStore } from '../../src/store/sessions.js';
import { TestBaton } from '../support/baton.js';
import { watchExit } from '../support/process.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';
import { sessionRow } from '../support/session-row.js';

const LONG = 10 * 60 * 1000;
/** A prompt that would run script if any part of the page inserted it as HTML. */
const HOSTILE = '</script><img src=x onerror=alert(1)>';
const shots = screenshotDir('dashboard');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

/** Logs a fresh page in through `baton ui`, as a person would, and lands on the board. */
async function openDashboard(t: TestBaton, options: { javaScript?: boolean } = {}): Promise<Page> {
  const login = await t.json<LoginCodeView>(['ui']);
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    javaScriptEnabled: options.javaScript ?? true,
  });
  const page = await context.newPage();
  // Collected and checked after each test: a throw inside these handlers would not fail it.
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // A dialog means injected script ran; React reports a hydration mismatch on the console.
  page.on('dialog', (dialog) => problems.push(`dialog: ${dialog.message()}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /hydrat|Minified React error/i.test(message.text()))
      problems.push(`console error: ${message.text()}`);
  });
  await page.goto(login.url);
  if (options.javaScript === false) return page;
  await page.waitForSelector('[data-testid=connection]:has-text("Live")');
  expect(new URL(page.url()).pathname).toBe('/');
  return page;
}

/** Submits a form by `click` and checks the post was answered with a 303 back to `back`, then loaded. */
async function formPost(page: Page, click: () => Promise<void>, back: string): Promise<void> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/respond')),
    click(),
  ]);
  expect(response.status()).toBe(303);
  expect(await response.headerValue('location')).toBe(back);
  await page.waitForLoadState();
  expect(new URL(page.url()).pathname).toBe(back);
}

const card = (page: Page, group: string, name: string) =>
  page.locator(`[data-group="${group}"] .card:has(.card-name:text-is("${name}"))`);

describe('the board', () => {
  const t = new TestBaton({ BATON_MAX_CONCURRENT: '4' });
  let repo: string;
  afterAll(() => t.cleanup());

  beforeAll(async () => {
    repo = t.repo('shop', { 'README.md': '# Shop\n\nSells things.\n' });
    const dispatch = (name: string, prompt: string, steps: unknown[]) =>
      t.ok(['dispatch', prompt, '--name', name, '--script', t.script(steps)], { cwd: repo });
    await dispatch('review', 'add a price formatter', [
      { say: 'Adding the formatter.' },
      {
        write: {
          path: 'src/price.ts',
          content: 'export const price = (cents: number) => `$${(cents / 100).toFixed(2)}`;\n',
        },
      },
      { edit: { path: 'README.md', old: 'Sells things.', new: 'Sells things, with prices.' } },
      { usage: { input: 4200, output: 900, usd: 0.042 } },
    ]);
    await dispatch('pinned', 'document the API', [{ say: 'Documented.' }]);
    await dispatch('hostile', HOSTILE, [{ say: 'Harmless.' }]);
    await dispatch('completed', 'fix a typo', [{ say: 'Fixed.' }]);
    await dispatch('failed', 'upgrade the runner', [{ fail: 'tests failed: 2 of 14' }]);
    await dispatch('stopped', 'benchmark', [{ say: 'Benchmarking.' }, { sleep: LONG }]);
    await Promise.all(
      ['review', 'pinned', 'completed', 'hostile'].map((n) => t.waitForState(n, 'ready_for_review')),
    );
    await t.waitForState('failed', 'failed');
    await t.waitForEvent('stopped', (e) => e.type === 'message.added');
    await t.ok(['stop', 'stopped']);
    await t.ok(['done', 'completed']);
    await t.ok(['pin', 'pinned']);
    await dispatch('question', 'refactor the watcher (#432)', [
      { say: 'Read watcher.ts.' },
      { ask: 'Keep the old onChange signature?' },
    ]);
    await dispatch('approval', 'clean the build', [
      { approve: { tool: 'Bash', input: 'rm -rf build', reason: 'deletes a folder' } },
    ]);
    await dispatch('working', 'run the long suite', [{ say: 'Running.' }, { sleep: LONG }]);
    await dispatch('busy', 'hold a slot', [{ say: 'Busy.' }, { sleep: LONG }]);
    await dispatch('queued', 'write the changelog', [{ say: 'Done.' }]);
    await Promise.all([
      t.waitForState('question', 'needs_input'),
      t.waitForState('approval', 'needs_input'),
      t.waitForState('working', 'working'),
      t.waitForState('busy', 'working'),
    ]);
  });

  it('shows every state in its group, with activity, usage and files changed', async () => {
    const page = await openDashboard(t);
    const expected: [string, string][] = [
      ['pinned', 'pinned'],
      ['needs_input', 'question'],
      ['needs_input', 'approval'],
      ['working', 'working'],
      ['ready_for_review', 'review'],
      ['queued', 'queued'],
      ['completed', 'completed'],
      ['failed', 'failed'],
      ['stopped', 'stopped'],
    ];
    for (const [group, name] of expected) await card(page, group, name).waitFor();
    const titles = await page.locator('.group-title').allInnerTexts();
    expect(
      titles.map((s) =>
        s
          .replace(/\s*\d+ files? · .*$/s, '')
          .replace(/\s*\d+$/, '')
          .trim()
          .toLowerCase(),
      ),
    ).toEqual([
      'pinned',
      'needs input',
      'working',
      'ready for review',
      'queued',
      'completed',
      'failed',
      'stopped',
    ]);

    await expect
      .poll(() => card(page, 'needs_input', 'question').locator('[data-testid=activity]').innerText())
      .toContain('asks: Keep the old onChange signature?');
    expect(await card(page, 'needs_input', 'approval').innerText()).toContain(
      'waiting: approve Bash `rm -rf build`?',
    );
    expect(await card(page, 'failed', 'failed').innerText()).toContain('tests failed: 2 of 14');
    const review = card(page, 'ready_for_review', 'review');
    await review.locator('.card-foot:has-text("2 files")').waitFor();
    expect(await review.locator('.card-foot').innerText()).toMatch(/5\.1k tok\s+\$0\.04/);
    expect(await card(page, 'queued', 'queued').innerText()).toContain('#1 in queue');
    // The review queue's size: 'review' added src/price.ts and changed a README line; 'hostile' changed nothing.
    await expect
      .poll(() => page.locator('[data-group="ready_for_review"] [data-testid=review-queue]').innerText())
      .toBe('2 files · +2 −1');
    expect(await card(page, 'ready_for_review', 'hostile').locator('.card-task').innerText()).toBe(HOSTILE);
    expect(await page.locator('.card img').count()).toBe(0);
    console.log(`screenshot: ${await shot(page, shots, 'board')}`);
    await page.context().close();
  });

  it("paints the board from the server's HTML alone, with JavaScript off", async () => {
    const page = await openDashboard(t, { javaScript: false });
    expect(new URL(page.url()).pathname).toBe('/');
    const groups = await Promise.all(
      (await page.locator('[data-group]').all()).map((section) => section.getAttribute('data-group')),
    );
    expect(groups).toEqual([
      'pinned',
      'needs_input',
      'working',
      'ready_for_review',
      'queued',
      'completed',
      'failed',
      'stopped',
    ]);
    for (const [group, name] of [
      ['pinned', 'pinned'],
      ['needs_input', 'approval'],
      ['failed', 'failed'],
      ['queued', 'queued'],
    ] as const) {
      expect(await card(page, group, name).count(), `${group}/${name}`).toBe(1);
    }
    expect(await card(page, 'failed', 'failed').locator('.chip').innerText()).toBe('Failed');
    expect(await card(page, 'ready_for_review', 'hostile').locator('.card-task').innerText()).toBe(HOSTILE);
    expect(await page.locator('.card img').count()).toBe(0);
    expect(await page.locator('.conn-static').innerText()).toContain('reload for changes');
    expect(await page.locator('[data-testid=connection]').isVisible()).toBe(false);
    console.log(`screenshot: ${await shot(page, shots, 'board-no-js')}`);
    await page.context().close();
  });

  it('opens a session with the keyboard and shows its diff against the base, new files included', async () => {
    const page = await openDashboard(t);
    await card(page, 'pinned', 'pinned').waitFor();
    await page.keyboard.press('/');
    await page.keyboard.type('price formatter');
    await page.keyboard.press('Escape');
    await page.locator('.card').first().waitFor();
    expect(await page.locator('.card').count()).toBe(1);
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=session-page] h1:text-is("review")');
    await page.waitForSelector('[data-testid=transcript] .msg-text:text-is("Adding the formatter.")');
    await page.keyboard.press('2');
    const diff = page.locator('[data-testid=diff]');
    await diff.waitFor();
    const text = await diff.innerText();
    expect(text).toContain('2 files changed');
    expect(text).toContain('src/price.ts');
    expect(text).toContain('export const price');
    expect(text).toContain('Sells things, with prices.');
    expect(await diff.locator('.d2h-file-wrapper').count()).toBe(2);
    console.log(`screenshot: ${await shot(page, shots, 'diff')}`);
    await page.keyboard.press('3');
    const cost = page.locator('[data-testid=usage] .total-value').first();
    await cost.waitFor();
    // One priced ledger, one dollar format (decision 154): four places below a dollar.
    expect(await cost.innerText()).toMatch(/^\$0\.0\d{3}$/);
    await page.context().close();
  });
});

describe('a board longer than a screen', () => {
  const t = new TestBaton();
  afterAll(() => t.cleanup());
  const COUNT = 30;
  let repo: string;

  beforeAll(() => {
    // Finished sessions written straight into a fresh store: 30 agents would add nothing here.
    mkdirSync(t.home, { recursive: true });
    const db = openDb(join(t.home, 'baton.db'));
    const store = new SessionStore(db);
    repo = t.repo('big');
    const project = store.ensureProject(repo);
    for (let i = 0; i < COUNT; i++) {
      const name = `task-${String(i).padStart(2, '0')}`;
      store.insert(
        sessionRow({
          id: `seeded${i}`,
          project_id: project.id,
          name,
          prompt: `Task ${i}`,
          worktree: join(t.root, 'gone', name),
        }),
        'completed',
      );
    }
    db.close();
  });

  it('paints a first screen from the HTML, then the script adds the rest', async () => {
    const page = await openDashboard(t);
    // The markup as the server sent it, with this browser's login cookie: no script has run on it.
    const sent = await page.context().request.get(new URL('/', page.url()).href);
    expect(sent.status()).toBe(200);
    const html = await sent.text();
    const names = [...html.matchAll(/<span class="card-name">([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(html.match(/class="card state-completed/g)).toHaveLength(24);
    expect(names).toHaveLength(24);
    expect(names.every((name) => /^task-\d\d$/.test(name ?? ''))).toBe(true);
    await expect.poll(() => page.locator('.card').count()).toBe(COUNT);
    expect(await page.locator('.more').count()).toBe(0);
    await page.context().close();
  });

  it('without JavaScript, shows the first screen and a link to every card', async () => {
    const page = await openDashboard(t, { javaScript: false });
    expect(await page.locator('.card').count()).toBe(24);
    await page.getByRole('link', { name: 'Show all' }).click();
    await page.waitForURL(/\?all=1$/);
    expect(await page.locator('.card').count()).toBe(COUNT);
    console.log(`screenshot: ${await shot(page, shots, 'board-all-no-js')}`);
    await page.context().close();
  });

  it('stays live through kill -9 of the supervisor: same address, same login, new sessions appear', async () => {
    const page = await openDashboard(t);
    const pid = t.supervisorPid();
    process.kill(pid, 'SIGKILL');
    await watchExit(pid);
    await page.waitForSelector('[data-testid=connection]:has-text("Reconnecting")');
    // Any command starts a new supervisor; the page was not told anything.
    await t.ok(
      ['dispatch', 'after the restart', '--name', 'phoenix', '--script', t.script([{ say: 'Back.' }])],
      { cwd: repo },
    );
    const info = JSON.parse(readFileSync(join(t.home, 'supervisor.json'), 'utf8')) as {
      pid: number;
      port: number;
    };
    expect(info.pid).not.toBe(pid);
    expect(info.port).toBe(Number(new URL(page.url()).port));
    await page.waitForSelector('[data-testid=connection]:has-text("Live")', { timeout: 20_000 });
    await card(page, 'ready_for_review', 'phoenix').waitFor({ timeout: 20_000 });
    await page.context().close();
  });
});

describe('answering sessions in place', () => {
  const t = new TestBaton();
  let repo: string;
  beforeAll(() => {
    repo = t.repo();
  });
  afterAll(() => t.cleanup());

  it('shows a new question live in the inbox with its context, and the reply from the page reaches the agent', async () => {
    const page = await openDashboard(t);
    await page.click('.nav-link:has-text("Inbox")');
    await page.waitForSelector('text=Inbox zero');
    const script = t.script([
      { say: 'Reading src/watcher.ts.' },
      { run: 'echo watching' },
      { ask: 'Keep the old onChange(path) signature?' },
      { write: { path: 'answer.txt', content: '{{reply}}' } },
    ]);
    const session = await t.json<SessionView>(
      ['dispatch', 'refactor the watcher (#432)', '--name', 'asker', '--script', script],
      { cwd: repo },
    );

    const item = page.locator(`.inbox-item[data-session-id="${session.id}"]`);
    await item.locator('[data-testid=question]:has-text("Keep the old onChange(path) signature?")').waitFor();
    const context = await item.locator('.context').innerText();
    expect(context).toContain('Reading src/watcher.ts.');
    expect(context).toContain('echo watching');
    expect(await item.locator('.inbox-head').innerText()).toContain('refactor the watcher (#432)');
    console.log(`screenshot: ${await shot(page, shots, 'inbox')}`);
    // Loaded directly, the inbox comes rendered by the server and hydrates without a mismatch (checked after each test).
    expect(new URL(page.url()).pathname).toBe('/inbox');
    await page.goto(page.url());
    await page.waitForSelector('[data-testid=connection]:has-text("Live")');
    await item.locator('.context:has-text("Reading src/watcher.ts.")').waitFor();

    await page.keyboard.press('r');
    await page.keyboard.type('keep it, add onEvent alongside');
    await page.keyboard.press('Enter');
    await item.waitFor({ state: 'detached' });
    const done = await t.waitForState('asker', 'ready_for_review');
    expect(readFileSync(join(done.worktree, 'answer.txt'), 'utf8')).toBe('keep it, add onEvent alongside');
    await page.context().close();
  });

  it('approves from the session page and denies from the board with the keyboard', async () => {
    const page = await openDashboard(t);
    const approve = t.script([
      { approve: { tool: 'Bash', input: 'echo approved > approved.txt', reason: 'writes a file' } },
    ]);
    const deny = t.script([{ approve: { tool: 'Bash', input: 'echo no > denied.txt' } }]);
    const first = await t.json<SessionView>(['dispatch', 'x', '--name', 'ap', '--script', approve], {
      cwd: repo,
    });
    await t.ok(['dispatch', 'y', '--name', 'dn', '--script', deny], { cwd: repo });
    await t.waitForState('ap', 'needs_input');
    await t.waitForState('dn', 'needs_input');

    await page.goto(page.url().replace(/\/$/, '') + `/s/${first.id}`);
    const waiting = page.locator('[data-testid=session-page] [data-testid=approval]');
    await waiting.locator('text=echo approved > approved.txt').waitFor();
    console.log(`screenshot: ${await shot(page, shots, 'approval')}`);
    await waiting.locator('button:has-text("Approve")').click();
    await page.waitForSelector('[data-testid=state-chip]:text-is("Ready for review")');
    await page.waitForSelector('[data-testid=transcript] .resolved-allow');
    const approved = await t.waitForState('ap', 'ready_for_review');
    expect(readFileSync(join(approved.worktree, 'approved.txt'), 'utf8')).toBe('approved\n');

    await page.keyboard.press('Escape');
    const dnCard = card(page, 'needs_input', 'dn');
    await dnCard.waitFor();
    // Needs input comes first on the board: j moves off the first card, k comes back to it.
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect.poll(() => dnCard.getAttribute('class')).toContain('selected');
    await page.keyboard.press('d');
    await card(page, 'ready_for_review', 'dn').waitFor();
    const events = await t.client().call('GET /api/sessions/:ref/events', { params: { ref: 'dn' } });
    expect(events.events).toContainEqual(
      expect.objectContaining({ type: 'approval.resolved', decision: 'deny' }),
    );
    await page.context().close();
  });

  it('answers without JavaScript: Approve on the board and Send in the inbox are form posts; a stale one says why', async () => {
    const approve = t.script([{ approve: { tool: 'Bash', input: 'echo plain > plain.txt' } }]);
    await t.ok(['dispatch', 'x', '--name', 'plain-ap', '--script', approve], { cwd: repo });
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'plain-ask',
        '--script',
        t.script([{ ask: 'Which port?' }, { write: { path: 'port.txt', content: '{{reply}}' } }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('plain-ap', 'needs_input');
    await t.waitForState('plain-ask', 'needs_input');
    const page = await openDashboard(t, { javaScript: false });

    await formPost(
      page,
      () => card(page, 'needs_input', 'plain-ap').locator('button:has-text("Approve")').click(),
      '/',
    );
    const approved = await t.waitForState('plain-ap', 'ready_for_review');
    expect(readFileSync(join(approved.worktree, 'plain.txt'), 'utf8')).toBe('plain\n');

    await page.goto(page.url().replace(/\/$/, '') + '/inbox');
    const item = page.locator('.inbox-item:has-text("Which port?")');
    console.log(`screenshot: ${await shot(page, shots, 'inbox-no-js')}`);
    await item.locator('textarea[name=text]').fill('8080');
    await formPost(page, () => item.locator('button:has-text("Send")').click(), '/inbox');
    const answered = await t.waitForState('plain-ask', 'ready_for_review');
    expect(readFileSync(join(answered.worktree, 'port.txt'), 'utf8')).toBe('8080');

    // A page loaded before the approval was answered elsewhere: its form is stale.
    await t.ok(['dispatch', 'x', '--name', 'plain-stale', '--script', approve], { cwd: repo });
    const stale = await t.waitForState('plain-stale', 'needs_input');
    await page.goto(page.url().replace(/\/inbox$/, '/'));
    await t.ok(['deny', 'plain-stale']);
    await card(page, 'needs_input', 'plain-stale').locator('button:has-text("Approve")').click();
    expect(await page.locator('h1').innerText()).toBe('That did not go through');
    expect(await page.locator('body').innerText()).toContain(
      'Session plain-stale is not waiting for an approval',
    );
    console.log(`screenshot: ${await shot(page, shots, 'stale-form-no-js')}`);
    expect(existsSync(join(stale.worktree, 'plain.txt'))).toBe(false);
    await page.context().close();
  });

  it('resumes a stopped session from its reply box, the reply its next turn', async () => {
    const page = await openDashboard(t);
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'paused', '--script', t.script([{ say: 'first turn done' }])],
      { cwd: repo },
    );
    await t.waitForState('paused', 'ready_for_review');
    await t.ok(['stop', 'paused']);
    await page.goto(page.url().replace(/\/$/, '') + `/s/${session.id}`);
    await page.waitForSelector('[data-testid=state-chip]:text-is("Stopped")');
    const box = page.locator('.session-reply textarea');
    expect(await box.getAttribute('placeholder')).toMatch(/^Reply to resume the session/);
    await box.fill('and the docs too');
    await box.press('Enter');
    await page.waitForSelector('[data-testid=transcript] .msg:has-text("Noted: and the docs too")');
    await page.waitForSelector('[data-testid=state-chip]:text-is("Ready for review")');
    console.log(`screenshot: ${await shot(page, shots, 'resumed-by-reply')}`);
    await page.context().close();
  });
});
