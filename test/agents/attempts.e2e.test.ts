/**
 * Best-of with a mix of agents, the real `claude` and `codex` binaries among them, through the
 * whole product against the scripted model server: one prompt reaches every agent, the
 * comparison lists each with its usage, and picking the scripted attempt lands it and archives
 * the real agents' attempts. Nothing leaves 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AttemptGroupView } from '../../src/api/attempts.js';
import { realAgentsEnv, startModelServer, type ModelServer } from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const PROMPT = 'best-of: look at the watcher and report';
const WAIT = 45_000;
vi.setConfig({ testTimeout: 4 * WAIT });

let server: ModelServer;
let agentHome: string;
let t: TestBaton;

beforeAll(async () => {
  // Text only: the same scenario answers both vendors, whose tools differ.
  server = await startModelServer([{ prompt: PROMPT, steps: [{ text: 'The watcher is fine as it is.' }] }]);
  agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
  t = new TestBaton(realAgentsEnv(server.url, agentHome));
});
afterAll(async () => {
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
  await server.close();
});

describe('best-of with claude, codex and the scripted agent', () => {
  it('starts one attempt per agent, compares them with their usage, and lands the pick', async () => {
    const repo = t.repo();
    const script = t.script([
      { write: { path: 'watcher.md', content: 'checked\n' } },
      { say: 'Wrote watcher.md.' },
    ]);
    const group = await t.json<AttemptGroupView>(
      [
        'dispatch',
        '--best-of',
        '3',
        '--agents',
        'claude,codex,scripted',
        '--name',
        'mix',
        '--script',
        script,
        PROMPT,
      ],
      { cwd: repo },
    );
    expect(group.attempts.map((a) => [a.name, a.agent])).toEqual([
      ['mix-a1', 'claude'],
      ['mix-a2', 'codex'],
      ['mix-a3', 'scripted'],
    ]);
    for (const a of group.attempts) await t.waitForState(a.name, 'ready_for_review', WAIT);

    // The one prompt reached both vendors' APIs.
    expect(new Set(server.requestsFor(PROMPT).map((r) => r.api))).toEqual(new Set(['anthropic', 'openai']));
    server.assertClean();

    const compared = await t.json<AttemptGroupView>(['attempts', 'show', group.id], { cwd: repo });
    expect(compared.attempts.map((a) => [a.agent, a.state, a.check.outcome, a.diff.files])).toEqual([
      ['claude', 'ready_for_review', 'none', []],
      ['codex', 'ready_for_review', 'none', []],
      ['scripted', 'ready_for_review', 'none', ['watcher.md']],
    ]);
    for (const a of compared.attempts.slice(0, 2)) expect(a.inputTokens + a.outputTokens).toBeGreaterThan(0);

    const picked = await t.run(['attempts', 'pick', 'mix-a3', '--json'], { cwd: repo });
    expect(picked.code, picked.stderr).toBe(0);
    expect(JSON.parse(picked.stdout)).toMatchObject({
      outcome: 'landed',
      archived: [{ name: 'mix-a1' }, { name: 'mix-a2' }],
    });
    expect(t.git(repo, 'show', 'HEAD:watcher.md')).toBe('checked');
  });
});
