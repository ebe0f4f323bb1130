/**
 * Debian Chromium driven by playwright-core. Chromium is a system package here, not a download:
 * when it is missing the tests fail and say how to get it, rather than skipping.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.BATON_CHROMIUM ?? '/usr/bin/chromium';

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
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}. \`.ci/run\` installs it (apt-get install -y chromium); set BATON_CHROMIUM to use another binary.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
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
