/**
 * Fault injection: the supervisor is killed (-9) at each step boundary of a dispatch — the
 * dispatch noted, the worktree made, the session recorded, the session queued, its host spawned,
 * its host ready — and started again. Whatever the point, afterwards: every session reaches a
 * truthful state (none stuck "working" with no host), every worktree and branch belongs to a
 * session, the name is free again when the session was never recorded, and no process is left over.
 * The supervisor kills itself at the named point (`crashPoint`, armed through a file naming its
 * pid): never a timer, which on a busy machine lands anywhere.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';
import { callApi } from '../support/http.js';
import { watchExit } from '../support/process.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

/** The step boundaries of a dispatch, in order: each is a `crashPoint` in src/sessions. */
const POINTS = [
  'dispatch.noted',
  'dispatch.worktree-made',
  'dispatch.recorded',
  'dispatch.queued',
  'host.spawned',
  'host.ready',
] as const;
/** `npm run soak` sets BATON_SOAK_KILLS: every point in turn, that many kills in all. */
const SOAK = Number(process.env.BATON_SOAK_KILLS ?? 0);
const KILLS = Array.from({ length: Math.max(SOAK, POINTS.length) }, (_, i) => POINTS[i % POINTS.length]!);

function dispatchRequest(name: string, script: string): Promise<unknown> {
  const body = {
    prompt: 'x',
    cwd: repo,
    name,
    options: { script: JSON.parse(readFileSync(script, 'utf8')) as unknown },
  };
  return callApi(t.home, 'POST', '/api/sessions', body).catch(() => undefined);
}

/** Whether `pid` is gone — exited and reaped by its parent — within `timeoutMs`. */
async function reaped(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** For a left-over host (`baton-host <id>`): its session's recorded host and the pid in its claim. */
function sessionOf(
  cmdline: string,
  live: SessionView[],
): { session?: string; recordedHost?: number | null; claim?: string } {
  const id = /^baton-host (\S+)/.exec(cmdline)?.[1];
  if (id === undefined) return {};
  let claim = 'none';
  try {
    claim = readFileSync(join(t.home, 'sessions', id, 'host.lock'), 'utf8');
  } catch {
    // no claim
  }
  const session = live.find((s) => s.id === id);
  return {
    session: session === undefined ? `${id} (not live)` : `${id} (${session.name}, ${session.state})`,
    recordedHost: session?.hostPid ?? null,
    claim,
  };
}

/** A process's parent, 0 once it is gone. */
function parentOf(pid: number): number {
  try {
    return Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** A left-over process's state and parent, for the failure message. */
function processStatus(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .filter((line) => /^(State|PPid):/.test(line))
      .join(' ');
  } catch {
    return 'gone';
  }
}

describe('a supervisor killed during a dispatch', () => {
  it(
    'leaves no stuck session, no worktree or branch without a session, and no stray process',
    { timeout: 60_000 + KILLS.length * 10_000 },
    async () => {
      const crashFile = join(t.root, 'crash-at');
      t.env.BATON_TEST_CRASH_FILE = crashFile;
      const script = t.script([{ say: 'hello' }]);
      const report: string[] = [];
      const stuck: string[] = [];
      for (const [i, point] of KILLS.entries()) {
        const name = `k${i}`;
        await t.ok(['ls']);
        // Armed for this supervisor only: the one started after it is not.
        const pid = t.supervisorPid();
        writeFileSync(crashFile, `${point} ${pid}`);
        const sent = dispatchRequest(name, script);
        await watchExit(pid);
        await sent;

        // Any command starts a new supervisor, which undoes or re-attaches what the last one left.
        const sessions = await t.json<SessionView[]>(['ls', '--json']);
        const session = sessions.find((s) => s.name === name);
        if (session === undefined) {
          // Never recorded: the name is free again, and the dispatch can simply be made again.
          await t.ok(['dispatch', 'x', '--name', name, '--script', script], { cwd: repo });
          report.push(`${point}: undone`);
        } else report.push(`${point}: ${session.state}`);
        await t
          .waitForState(name, 'ready_for_review', 15_000)
          .catch((error: unknown) => stuck.push(`${name} (killed at ${point}): ${String(error)}`));
      }
      expect(stuck).toEqual([]);

      const live = await t.json<SessionView[]>(['ls', '--json']);
      expect(live.map((s) => s.name).sort()).toEqual(KILLS.map((_, i) => `k${i}`).sort());
      const worktrees = t
        .git(repo, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((line) => line.startsWith('worktree ') && line.includes(join(t.home, 'worktrees')))
        .map((line) => line.slice('worktree '.length))
        .sort();
      expect(worktrees).toEqual(live.map((s) => s.worktree).sort());
      const branches = t
        .git(repo, 'branch', '--list', 'baton/*', '--format=%(refname:short)')
        .split('\n')
        .filter(Boolean)
        .sort();
      expect(branches).toEqual(live.map((s) => s.branch).sort());

      // Processes: the supervisor, its spare host, and one host per session (kept ready for review).
      const supervisor = t.supervisorPid();
      const hosts = new Set(live.map((s) => s.hostPid));
      // A child the supervisor has just finished with (a git command of its own) may not be reaped
      // yet at this instant — a zombie, exited — or be a moment from exiting: only what is still
      // there after a bounded wait is left over. An orphaned host never goes, so it is still caught.
      // The supervisor's git runner is its own (decision 415); one whose supervisor died is a stray.
      const runner = (p: { pid: number; cmdline: string }): boolean =>
        p.cmdline.includes('git-runner-child') && parentOf(p.pid) === supervisor;
      const candidates = t
        .processes()
        .filter(
          (p) => p.pid !== supervisor && !hosts.has(p.pid) && !p.cmdline.includes('--warm') && !runner(p),
        );
      const strays = (
        await Promise.all(
          candidates.map(async (p) =>
            (await reaped(p.pid))
              ? undefined
              : { ...p, status: processStatus(p.pid), ...sessionOf(p.cmdline, live) },
          ),
        )
      ).filter((p) => p !== undefined);
      expect(strays).toEqual([]);
      const undone = report.filter((line) => line.endsWith('undone')).length;
      // The figures `npm run soak` reports.
      console.log(
        `kill loop: ${KILLS.length} kills at ${POINTS.length} step boundaries, ${undone} dispatches undone, ${KILLS.length - undone} recovered; stuck ${stuck.length}, stray processes ${strays.length}, worktrees or branches left behind ${worktrees.length - live.length + branches.length - live.length}`,
      );
    },
  );
});

describe('processes killed under a running session', () => {
  it("an agent's command killed -9: the tool is reported failed and the agent goes on, instead of hanging", async () => {
    const script = t.script([
      { run: ['sh', '-c', 'echo $$ > cmd.pid; while true; do sleep 0.05; done'] },
      { say: 'never' },
    ]);
    const session = await t.json<SessionView>(['dispatch', 'x', '--name', 'victim', '--script', script], {
      cwd: repo,
    });
    await t.waitForEvent('victim', (e) => e.type === 'tool.started');
    const pidFile = join(session.worktree, 'cmd.pid');
    const { existsSync, watch } = await import('node:fs');
    if (!existsSync(pidFile)) {
      await new Promise<void>((resolve) => {
        const watcher = watch(session.worktree, () => {
          if (existsSync(pidFile) && readFileSync(pidFile, 'utf8').includes('\n')) {
            watcher.close();
            resolve();
          }
        });
      });
    }
    // `$$` is the command's pid in its sandbox's own PID namespace (decision 163): found from here
    // among the test's processes instead (bwrap's own command lines hold the script too).
    const command = t.processes().find((p) => p.cmdline.startsWith('sh -c echo $$ > cmd.pid'));
    if (command === undefined)
      throw new Error(`the running command is not among ${JSON.stringify(t.processes())}`);
    process.kill(command.pid, 'SIGKILL');
    const finished = await t.waitForEvent('victim', (e) => e.type === 'tool.finished');
    expect(finished.type === 'tool.finished' && finished.ok).toBe(false);
    // Like a real agent, the scripted one sees the failed command and carries on with its turn.
    await t.waitForState('victim', 'ready_for_review');
    expect((await t.waitForEvent('victim', (e) => e.type === 'message.added')).type).toBe('message.added');
  });

  it('a host killed -9 mid-turn: the session is failed with the reason, and respawn carries on in the same worktree', async () => {
    const script = t.script([
      { write: { path: 'before.txt', content: 'kept\n' } },
      { run: ['sh', '-c', 'while [ ! -f go ]; do sleep 0.05; done'] },
    ]);
    const session = await t.json<SessionView>(
      ['dispatch', 'x', '--name', 'host-victim', '--script', script],
      { cwd: repo },
    );
    await t.waitForEvent('host-victim', (e) => e.type === 'tool.started' && e.input.includes('while'));
    const running = await t.json<{ session: SessionView }>(['peek', 'host-victim']);
    process.kill(running.session.hostPid ?? -1, 'SIGKILL');
    const failed = await t.waitForState('host-victim', 'failed');
    expect(failed.reason).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/exited unexpectedly/) as unknown,
    });
    expect(readFileSync(join(session.worktree, 'before.txt'), 'utf8')).toBe('kept\n');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(session.worktree, 'go'), '');
    await t.ok(['respawn', 'host-victim']);
    expect((await t.waitForState('host-victim', 'ready_for_review')).worktree).toBe(session.worktree);
  });
});
