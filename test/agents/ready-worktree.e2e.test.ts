/**
 * The user's own Claude Code setup through the whole product (decision 59, "Setup runs in the session's
 * host"): the real `claude`, dispatched by `baton` into a repository with a CLAUDE.md, a
 * `.claude/settings.json` allow rule and a `.baton/config.json` asking for a port, against the scripted
 * model server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BatonEvent } from '../../src/events/index.js';
import { realAgentsEnv, startModelServer, type ModelServer } from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 45_000;
vi.setConfig({ testTimeout: 3 * WAIT });

let server: ModelServer;
let agentHome: string;
let t: TestBaton;

beforeAll(async () => {
  server = await startModelServer([
    {
      prompt: 'claude: check the tools',
      steps: [
        {
          tools: [
            { name: 'Bash', input: { command: 'npm --version', description: 'allowed by the repository' } },
          ],
        },
        { text: 'Checked.' },
      ],
    },
  ]);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
  server.assertClean();
});

describe("a claude session with the user's own setup", () => {
  it("gets the repository's CLAUDE.md and Baton's instructions with its port, and runs what .claude/settings.json allows without asking", async () => {
    agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
    t = new TestBaton(realAgentsEnv(server.url, agentHome));
    const repo = t.repo('app', {
      'README.md': '# app\n',
      'CLAUDE.md': 'Project rule: the magic word is KESTREL-4.\n',
      '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Bash(npm --version)'] } }),
      '.baton/config.json': JSON.stringify({ ports: { count: 1 } }),
    });
    // The user has trusted their checkout in their own Claude Code, not the session's new
    // worktree: Baton hands the repository's rules over itself (decision 58).
    writeFileSync(
      join(agentHome, '.claude.json'),
      JSON.stringify({ projects: { [repo]: { hasTrustDialogAccepted: true } } }),
    );

    await t.ok(['dispatch', 'claude: check the tools', '--agent', 'claude', '--name', 'tools'], {
      cwd: repo,
    });
    const done = await t.waitForState('tools', 'ready_for_review', WAIT);
    const events = (await t.ok(['logs', 'tools', '--json']))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as BatonEvent);
    expect(events.some((e) => e.type === 'approval.requested')).toBe(false);
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool.finished', tool: 'Bash', ok: true }));

    const first = server.requestsFor('claude: check the tools')[0]!;
    expect(first.text).toContain('KESTREL-4');
    const port = done.ports?.[0]?.port;
    expect(port).toBeGreaterThan(0);
    expect(first.text).toContain(`PORT=${port}`);
    expect(first.text).toContain('one of several coding agents Baton runs in parallel');
  });
});
