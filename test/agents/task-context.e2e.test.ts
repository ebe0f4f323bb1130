/**
 * A session started from a task is told its context (decision 75, "What a session started from a task
 * is told, and when"): the real `claude` and the real `codex`, started with `baton task start` against
 * the scripted model server, receive the task, its scope, its decisions and notes and the other running
 * sessions in their instructions — and the repository's CLAUDE.md and AGENTS.md stay untouched.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { realAgentsEnv, startModelServer, type ModelServer } from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 45_000;
vi.setConfig({ testTimeout: 3 * WAIT });

let server: ModelServer;
let agentHome: string;
let t: TestBaton;

beforeAll(async () => {
  server = await startModelServer(
    ['claude', 'codex'].map((agent) => ({
      prompt: `${agent}: refactor the watcher`,
      steps: [{ text: 'Understood; done.' }],
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

describe.each(['claude', 'codex'] as const)('a %s session started from a task', (agent) => {
  it('receives the task, its scope, decisions, notes and the other running sessions in its instructions', async () => {
    agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
    t = new TestBaton(realAgentsEnv(server.url, agentHome));
    const repo = t.repo('app', {
      'README.md': '# app\n',
      'CLAUDE.md': 'Project rule: be brief.\n',
      'AGENTS.md': 'Project rule: be brief.\n',
      'src/watcher.ts': 'export {};\n',
      'lib/ipc.ts': 'export {};\n',
    });

    // Another task, running (waiting on a question) in a scripted session.
    await t.ok(['task', 'add', 'IPC handlers', '--scope', 'lib/**'], { cwd: repo });
    await t.ok(
      [
        'task',
        'start',
        '1',
        '--agent',
        'scripted',
        '--name',
        'ipc',
        '--script',
        t.script([{ ask: 'which transport?' }]),
      ],
      { cwd: repo },
    );
    await t.waitForState('ipc', 'needs_input');

    await t.ok(
      [
        'task',
        'add',
        `${agent}: refactor the watcher`,
        '--scope',
        'src/**',
        '--tracker',
        '#432',
        '--description',
        'Make it poll less.',
      ],
      { cwd: repo },
    );
    await t.ok(['decide', '2', 'keep the old onChange signature: three callers depend on it'], { cwd: repo });
    await t.ok(['note', '2', 'fixtures in test/watcher conflict'], { cwd: repo });
    await t.ok(['task', 'start', '2', '--agent', agent, '--name', 'watcher'], { cwd: repo });
    const done = await t.waitForState('watcher', 'ready_for_review', WAIT);

    const first = server.requestsFor(`${agent}: refactor the watcher`)[0];
    expect(first, 'the model server saw the session').toBeDefined();
    const seen = first?.text ?? '';
    expect(seen).toContain(`## Your task: 2. ${agent}: refactor the watcher (tracker: #432)`);
    expect(seen).toContain('Do not modify files outside src/**');
    expect(seen).toContain(
      '- keep the old onChange signature: three callers depend on it (.baton/decisions/2-1-',
    );
    expect(seen).toContain('- fixtures in test/watcher conflict (.baton/notes/2-1-');
    expect(seen).toContain('- ipc (scripted, needs input): task 1. IPC handlers (scope lib/**)');
    expect(seen).toContain('may be another agent mid-edit');
    // Baton's own instructions too, and never in the user's files.
    expect(seen).toContain('one of several coding agents Baton runs in parallel');
    for (const file of ['CLAUDE.md', 'AGENTS.md']) {
      expect(readFileSync(join(done.worktree, file), 'utf8')).toBe('Project rule: be brief.\n');
      expect(readFileSync(join(repo, file), 'utf8')).toBe('Project rule: be brief.\n');
    }
    expect(existsSync(join(done.worktree, '.baton', 'decisions'))).toBe(false);
  });
});
