/**
 * Sync with the real `claude` and `codex` binaries against the scripted model server: the agent
 * commits one file (its command approved) and leaves another uncommitted; its turn end pushes the branch and a snapshot
 * of the uncommitted work to a local bare remote, and a fresh clone restores both.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RestoreView } from '../../src/api/sync.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import {
  realAgentsEnv,
  startModelServer,
  type ModelServer,
  type Scenario,
} from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';
import { configure } from '../support/landing.js';

const WAIT = 45_000;
vi.setConfig({ testTimeout: 3 * WAIT });

const COMMIT =
  'git add c.txt && git -c user.name=Agent -c user.email=agent@example.com commit -qm "committed work"';
const patch = (body: string): string => `*** Begin Patch\n${body}*** End Patch\n`;
const STEPS: Record<'claude' | 'codex', Scenario['steps']> = {
  claude: [
    { tools: [{ name: 'Write', input: { file_path: 'c.txt', content: 'committed\n' } }] },
    { tools: [{ name: 'Bash', input: { command: COMMIT, description: 'commit' } }] },
    { tools: [{ name: 'Write', input: { file_path: 'u.txt', content: 'uncommitted\n' } }] },
    { text: 'Committed one, left one.' },
  ],
  codex: [
    { tools: [{ name: 'apply_patch', input: patch('*** Add File: c.txt\n+committed\n') }] },
    // Outside the sandbox: a worktree's git folder is in the main repository's, beyond the writable root.
    {
      tools: [
        {
          name: 'exec_command',
          input: { cmd: COMMIT, sandbox_permissions: 'require_escalated', justification: 'commit' },
        },
      ],
    },
    { tools: [{ name: 'apply_patch', input: patch('*** Add File: u.txt\n+uncommitted\n') }] },
    { text: 'Committed one, left one.' },
  ],
};

let server: ModelServer;
let agentHome: string;
let t: TestBaton;

beforeAll(async () => {
  server = await startModelServer(
    (['claude', 'codex'] as const).map((agent) => ({
      prompt: `${agent}: commit one, leave one`,
      steps: STEPS[agent],
    })),
  );
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
  server.assertClean();
});

describe.each(['claude', 'codex'] as const)('%s through baton with "sync": {"push": "turn"}', (agent) => {
  it('pushes its branch and uncommitted work at the turn end, and a fresh clone restores both', async () => {
    agentHome = mkdtempSync(join(tmpdir(), 'baton-sync-home-'));
    t = new TestBaton(realAgentsEnv(server.url, agentHome));
    const repo = t.repo();
    const bare = join(t.root, 'remote.git');
    t.git(t.root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
    t.git(repo, 'remote', 'add', 'origin', bare);
    configure(t, repo, { sync: { push: 'turn' } });
    t.git(repo, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');

    await t.ok(
      [
        'dispatch',
        `${agent}: commit one, leave one`,
        '--agent',
        agent,
        '--name',
        'travel',
        '--permission-mode',
        'acceptEdits',
      ],
      { cwd: repo },
    );
    // The commit is a command: approved by hand, as a user would.
    await t.waitForState('travel', 'needs_input', WAIT);
    await t.ok(['approve', 'travel'], { cwd: repo });
    const done = await t.waitForState('travel', 'ready_for_review', WAIT);
    const pushed = (await t.workspaceEvent(
      (e) => e.type === 'sync.pushed' && e.data.name === 'travel',
      WAIT,
    )) as Extract<WorkspaceEvent, { type: 'sync.pushed' }>;
    const head = t.git(done.worktree, 'rev-parse', 'HEAD');
    expect(t.git(done.worktree, 'log', '-1', '--format=%s')).toBe('committed work');
    expect(pushed.data).toMatchObject({ commit: head, snapshotRef: `refs/baton/snapshots/${done.id}` });
    expect(t.git(bare, 'rev-parse', 'refs/heads/baton/travel')).toBe(head);
    expect(t.git(bare, 'show', `refs/baton/snapshots/${done.id}:u.txt`)).toBe('uncommitted');

    const fresh = join(t.root, 'fresh');
    t.git(t.root, 'clone', '--quiet', bare, fresh);
    const restored = await t.json<RestoreView>(['sync', 'restore', done.id], { cwd: fresh });
    expect(restored).toMatchObject({ branch: 'baton/travel', commit: head, uncommittedFiles: ['u.txt'] });
    expect(readFileSync(join(restored.path, 'c.txt'), 'utf8')).toBe('committed\n');
    expect(readFileSync(join(restored.path, 'u.txt'), 'utf8')).toBe('uncommitted\n');
    expect(t.git(restored.path, 'status', '--porcelain')).toBe('?? u.txt');
  });
});
