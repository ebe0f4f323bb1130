/**
 * The question in context (decision 75, "What a session started from a task is told, and when"): the
 * board and the inbox show the task title and tracker reference next to a session's question, in a real
 * browser against a real supervisor.
 */
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoginCodeView } from '../../src/api/web.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile } from '../support/browser.js';

let browser: Browser;
const problems: string[] = [];
chromiumForFile((launched) => (browser = launched), problems);

describe('a session started from a task', () => {
  const t = new TestBaton();
  afterAll(() => t.cleanup());

  it('shows its task title and tracker beside its question on the board and in the inbox', async () => {
    const repo = t.repo('app');
    await t.ok(
      ['task', 'add', 'fix the flaky watcher test', '--tracker', 'https://tracker.test/issues/432'],
      { cwd: repo },
    );
    await t.ok(
      [
        'task',
        'start',
        '1',
        '--agent',
        'scripted',
        '--name',
        'flaky',
        '--script',
        t.script([{ ask: 'keep the old onChange signature?' }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('flaky', 'needs_input');

    const login = await t.json<LoginCodeView>(['ui']);
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(login.url);
    const card = page.locator('.card:has(.card-name:text-is("flaky"))');
    await expect
      .poll(() => card.locator('[data-testid=task-tag]').textContent())
      .toBe('(fix the flaky watcher test, https://tracker.test/issues/432)');
    expect(await card.locator('[data-testid=task-tag] a').getAttribute('href')).toBe(
      'https://tracker.test/issues/432',
    );

    await page.goto(new URL('/inbox', page.url()).href);
    const item = page.locator('.inbox-item[data-session-id]');
    await item.locator('[data-testid=question]').waitFor();
    expect(await item.locator('[data-testid=task-tag]').textContent()).toBe(
      '(fix the flaky watcher test, https://tracker.test/issues/432)',
    );
    expect(await item.locator('[data-testid=question]').textContent()).toContain(
      'keep the old onChange signature?',
    );
  });
});
