/**
 * The dashboard with the real `claude` and `codex` binaries (against the scripted model server):
 * their approvals reach the inbox in context and are answered from the page.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { LoginCodeView } from '../../src/api/web.js';
import { TestBaton } from '../support/baton.js';
import { launchChromium, screenshotDir, shot } from '../support/browser.js';
import { realAgentsEnv, startModelServer, type ModelServer } from '../support/model-server/index.js';

const shots = screenshotDir('real-agents');
/** One wait on a real agent; the test, of several waits, gets far longer, so a stuck wait says what it waited on. */
const WAIT = 45_000;
vi.setConfig({ testTimeout: 3 * WAIT });
/** Errors thrown in the page, checked after each test: a throw in the handler would fail nothing. */
const pageErrors: string[] = [];
let browser: Browser;
let server: ModelServer;
let agentHome: string;
let t: TestBaton;
let repo: string;

beforeAll(async () => {
  server = await startModelServer([
    {
      prompt: 'claude: clean the build folder',
      steps: [
        {
          tools: [
            { name: 'Bash', input: { command: 'echo cleaned > cleaned.txt', description: 'clean up' } },
          ],
        },
        { text: 'Cleaned.' },
      ],
    },
    {
      prompt: 'codex: tidy the logs',
      steps: [
        {
          tools: [
            {
              name: 'exec_command',
              input: {
                cmd: 'echo tidy > tidy.txt',
                sandbox_permissions: 'require_escalated',
                justification: 'writes a file',
              },
            },
          ],
        },
        { text: 'Tidied.' },
      ],
    },
  ]);
  agentHome = mkdtempSync(join(tmpdir(), 'baton-web-agents-'));
  t = new TestBaton(realAgentsEnv(server.url, agentHome));
  repo = t.repo();
  browser = await launchChromium();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
  server.assertClean();
});
afterAll(async () => {
  await browser?.close();
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
  await server.close();
});

async function openInbox(): Promise<Page> {
  const login = await t.json<LoginCodeView>(['ui']);
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on('pageerror', (error) => pageErrors.push(`page error: ${error.message}`));
  await page.goto(login.url);
  await page.waitForSelector('[data-testid=connection]:has-text("Live")');
  await page.click('.nav-link:has-text("Inbox")');
  return page;
}

describe('real agents in the dashboard', () => {
  it.each([
    ['claude', 'claude: clean the build folder', 'echo cleaned > cleaned.txt', 'cleaned.txt'],
    ['codex', 'codex: tidy the logs', 'echo tidy > tidy.txt', 'tidy.txt'],
  ])(
    'shows a %s approval in the inbox and runs the command when approved from the page',
    async (agent, prompt, command, file) => {
      const page = await openInbox();
      const session = await t.json<SessionView>(
        ['dispatch', prompt, '--agent', agent, '--name', `${agent}-web`],
        { cwd: repo },
      );
      const item = page.locator(`.inbox-item[data-session-id="${session.id}"]`);
      await item.waitFor({ timeout: WAIT });
      expect(await item.innerText()).toContain(command);
      expect(await item.locator('.inbox-head').innerText()).toContain(prompt);
      console.log(`screenshot: ${await shot(page, shots, `${agent}-inbox`)}`);
      expect(existsSync(join(session.worktree, file))).toBe(false);

      await item.locator('button:has-text("Approve")').click();
      await item.waitFor({ state: 'detached' });
      const done = await t.waitForState(session.id, 'ready_for_review', WAIT);
      expect(readFileSync(join(done.worktree, file), 'utf8')).toMatch(/^(cleaned|tidy)\n$/);
      await page.context().close();
    },
  );
});
