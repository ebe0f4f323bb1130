/**
 * A system Chrome/Chromium driven by playwright-core, found by the same finder `npm test` runs
 * first (scripts/chromium.mjs, which installs Debian's chromium when it can). When none is found
 * the tests fail and say how to get one, rather than skipping.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureChromium } from '../../scripts/chromium.mjs';

/** Flags that keep a headless run quiet and offline: no sandbox (root in CI), no GPU, no phoning home. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function launchChromium(): Promise<Browser> {
  // Never installs from inside a test run: `npm test` did that before vitest started.
  const found = await ensureChromium({ install: false });
  if (!found.ok) throw new Error(found.message);
  return chromium.launch({ executablePath: found.path, args: ARGS, headless: true });
}

/** Where a test's screenshots go; printed so a person can look at them. */
export function screenshotDir(name: string): string {
  const dir = join(process.env.BATON_SCREENSHOTS ?? join(tmpdir(), 'baton-screenshots'), name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function shot(page: Page, dir: string, name: string): Promise<string> {
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * One Chromium for a test file: launched before its tests (handed over through `use`), closed
 * after them; and after each test, the page problems it collected (console and page errors)
 * must be none.
 */
export function chromiumForFile(use: (browser: Browser) => void, problems: string[]): void {
  let launched: Browser | undefined;
  beforeAll(async () => {
    launched = await launchChromium();
    use(launched);
  });
  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await launched?.close();
  });
}
