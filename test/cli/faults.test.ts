/**
 * Fault injection: the supervisor is killed (-9) at points spread over a dispatch — before the
 * worktree, while git makes it, before the session is recorded, while its host starts — and
 * started again. Whatever the point, afterwards: every session reaches a truthful state (none
 * stuck "working" with no host), every worktree and branch belongs to a session, the name is free
 * again when the session was never recorded, and no process is left over.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
beforeEach(() => {
  t = new TestBaton();
  repo = t.repo();
});
afterEach(() => t.cleanup());

/** Offsets after the dispatch request (ms): a dispatch takes ~100–400 ms here, a host start ~200 ms. */
const KILL_AFTER_MS = [0, 10, 25, 50, 75, 100, 150, 200, 300, 450];

function dispatchRequest(name: string, script: string): Promise<unknown> {
  const { port } = JSON.parse(readFileSync(join(t.home, 'supervisor.json'), 'utf8')) as { port: number };
  const token = readFileSync(join(t.home, 'token'), 'utf8').trim();
  return fetch(`http://127.0.0.1:${port}/api/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'x', cwd: repo, name, options: { script: JSON.parse(readFileSync(script, 'utf8')) as unknown } }),
  }).catch(() => undefined);
}

async function killSupervisor(): Promise<void> {
  const pid = t.supervisorPid();
  process.kill(pid, 'SIGKILL');
  await new Promise<void>((resolve) => {
    const check = (): void => {
      try {
        process.kill(pid, 0);
        setImmediate(check);
      } catch {
        resolve();
      }
    };
    check();
  });
}

describe('a supervisor killed during a dispatch', () => {
  it('leaves no stuck session, no worktree or branch without a session, and no stray process', async () => {
    const script = t.script([{ say: 'hello' }]);
    const report: string[] = [];
    for (const [i, delay] of KILL_AFTER_MS.entries()) {
      const name = `k${i}`;
      await t.ok(['ls']);
      const sent = dispatchRequest(name, script);
      // The fault: a kill at a point of the dispatch set by the clock, not a wait for a result.
      await new Promise((resolve) => setTimeout(resolve, delay));
      await killSupervisor();
      await sent;

      // Any command starts a new supervisor, which undoes or re-attaches what the last one left.
      const sessions = await t.json<SessionView[]>(['ls', '--json']);
      const session = sessions.find((s) => s.name === name);
      if (session === undefined) {
        // Never recorded: the name is free again, and the dispatch can simply be made again.
        await t.ok(['dispatch', 'x', '--name', name, '--script', script], { cwd: repo });
        report.push(`${delay} ms: undone`);
      } else report.push(`${delay} ms: ${session.state}`);
      const settled = await t.waitForState(name, 'ready_for_review', 15_000);
      expect(settled.state).toBe('ready_for_review');
    }

    const live = await t.json<SessionView[]>(['ls', '--json']);
    expect(live.map((s) => s.name).sort()).toEqual(KILL_AFTER_MS.map((_, i) => `k${i}`).sort());
    const worktrees = t
      .git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((line) => line.startsWith('worktree ') && line.includes(join(t.home, 'worktrees')))
      .map((line) => line.slice('worktree '.length))
      .sort();
    expect(worktrees).toEqual(live.map((s) => s.worktree).sort());
    const branches = t.git(repo, 'branch', '--list', 'baton/*', '--format=%(refname:short)').split('\n').filter(Boolean).sort();
    expect(branches).toEqual(live.map((s) => s.branch).sort());

    // Processes: the supervisor, its spare host, and one host per session (kept ready for review).
    const supervisor = t.supervisorPid();
    const hosts = new Set(live.map((s) => s.hostPid));
    const strays = t.processes().filter((p) => p.pid !== supervisor && !hosts.has(p.pid) && !p.cmdline.includes('--warm'));
    expect(strays).toEqual([]);
    expect(report).toHaveLength(KILL_AFTER_MS.length);
  });
});
