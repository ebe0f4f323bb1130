/**
 * Attempts in a real browser (Debian Chromium) against a real supervisor: a best-of group of
 * scripted sessions with real work, compared on the page (the repository's real check run on
 * each), the winner picked with a click and landed, the others archived; and a fan-out's report.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptGroupView, FanoutView } from '../../src/api/attempts.js';
import { TestBaton } from '../support/baton.js';
import { chromiumForFile, screenshotDir, shot } from '../support/browser.js';
import { configure } from '../support/landing.js';

const shots = screenshotDir('attempts');
let browser: Browser;
const problems: string[] = [];

chromiumForFile((launched) => (browser = launched), problems);

describe('attempts on the dashboard', () => {
  const t = new TestBaton({ BATON_NO_BROWSER: '1' });
  let repo: string;

  beforeAll(() => {
    repo = t.repo('shop');
    configure(t, repo, { merge: { check: 'grep -q best-a2 who.txt || { echo "not the one"; exit 1; }' } });
  });
  afterAll(() => t.cleanup());

  async function open(path: string): Promise<Page> {
    const login = await t.json<{ url: string }>(['ui']);
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${login.url}&next=${encodeURIComponent(path)}`);
    await page.waitForSelector('[data-testid=connection]:has-text("Live")');
    return page;
  }

  /** Two attributes of every element the locator finds, in page order. */
  const pairs = async (locator: Locator, a: string, b: string) =>
    Promise.all((await locator.all()).map(async (e) => [await e.getAttribute(a), await e.getAttribute(b)]));

  it('compares a best-of group, picks the winner with a click, and shows the others archived', async () => {
    const script = t.script([
      { run: 'echo "$BATON_SESSION_NAME" > who.txt' },
      { usage: { input: 100, output: 20, usd: 0.02 } },
    ]);
    const group = await t.json<AttemptGroupView>(
      ['dispatch', '--best-of', '3', '--name', 'best', '--script', script, 'pick the best'],
      { cwd: repo },
    );
    for (const a of group.attempts) await t.waitForState(a.name, 'ready_for_review');

    const page = await open('/attempts');
    await page.click(`[data-testid=attempt-group][data-group="${group.id}"]`);
    await page.waitForSelector('[data-testid=attempt-comparison][data-state=open]');
    // The checks run when the page asks: each row says how its attempt did.
    await page.waitForSelector('[data-testid=attempt][data-name=best-a3][data-check=failed]', {
      timeout: 30_000,
    });
    const rows = page.locator('[data-testid=attempt]');
    expect(await pairs(rows, 'data-name', 'data-check')).toEqual([
      ['best-a1', 'failed'],
      ['best-a2', 'passed'],
      ['best-a3', 'failed'],
    ]);
    expect(await page.locator('[data-testid=attempt][data-name=best-a2]').innerText()).toMatch(
      /best-a2\s+scripted\s+ready for review\s+passed \(\d+\.\ds\)\s+\+1 −0\s+1\s+\$0\.02/,
    );
    await shot(page, shots, 'comparison');

    await page.locator('[data-testid=attempt][data-name=best-a2] button:has-text("Pick")').click();
    await page.waitForSelector('[data-testid=attempt-comparison][data-state=landed]', { timeout: 30_000 });
    await page.waitForSelector('[data-testid=attempt][data-name=best-a2][data-winner=true]');
    expect(await pairs(rows, 'data-name', 'data-archived')).toEqual([
      ['best-a1', 'true'],
      ['best-a2', 'false'],
      ['best-a3', 'true'],
    ]);
    expect(await page.locator('[data-testid=attempt-message]').innerText()).toBe(
      'best-a2 landed; archived best-a1, best-a3 with their work kept.',
    );
    expect(await page.locator('[data-testid=attempt] button').count()).toBe(0);
    expect(t.git(repo, 'show', 'main:who.txt')).toBe('best-a2');
    await shot(page, shots, 'landed');
    expect(problems).toEqual([]);
  });

  it("shows a fan-out's report, batch by batch", async () => {
    const items = join(t.root, 'items.txt');
    writeFileSync(items, 'a.ts\nb.ts\nc.ts\n');
    const script = t.script([{ say: 'Batch finished.' }]);
    const fanout = await t.json<FanoutView>(
      ['fanout', items, '--batch', '2', '--name', 'fan', '--prompt', 'touch each', '--script', script],
      { cwd: repo },
    );
    await t.waitForState('fan-b2', 'ready_for_review');
    await t.waitForState('fan-b1', 'ready_for_review');
    const page = await open(`/fanouts/${fanout.id}`);
    await page.waitForSelector('[data-testid=fanout-report]');
    const batches = page.locator('[data-testid=fanout-batch]');
    expect(await Promise.all((await batches.all()).map((e) => e.getAttribute('data-state')))).toEqual([
      'done',
      'done',
    ]);
    await batches.first().locator('summary').click();
    expect(await batches.first().innerText()).toMatch(
      /Batch 1 · done · fan-b1[\s\S]*a\.ts, b\.ts[\s\S]*Batch finished\./,
    );
    expect(problems).toEqual([]);
  });
});
