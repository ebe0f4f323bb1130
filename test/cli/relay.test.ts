/**
 * The workspace bus across machines sharing one PostgreSQL (decision 135): an event
 * published on beta (a task added from its CLI, in a repository with no remote: beta's own, though
 * numbered from the workspace's sequence, decision 147) reaches alpha's `baton events -f` marked with
 * beta's name, once; alpha's own events are not echoed back; a follower that comes back with its
 * cursor gets what happened meanwhile on both machines, nothing lost and nothing repeated.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { RelayedWorkspaceEvent } from '../../src/events/workspace-relayed.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import type { TestBaton } from '../support/baton.js';
import { clusterMachines } from '../support/cluster.js';
import { exitOf } from '../support/process.js';
import { until } from '../support/wait.js';

const { database, machine } = clusterMachines();

type Line = WorkspaceEvent | RelayedWorkspaceEvent;

/** `baton events -f --json` on `side`, its lines parsed as they come. */
function follower(
  side: TestBaton,
  after: number,
): {
  child: ChildProcess;
  lines: Line[];
  until: (check: (lines: Line[]) => boolean, what: string) => Promise<void>;
} {
  const child = side.spawn(['events', '-f', '--json', '--after', String(after)]);
  const lines: Line[] = [];
  const waiting: (() => void)[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, nl)) as Line);
      buffer = buffer.slice(nl + 1);
    }
    waiting.splice(0).forEach((wake) => wake());
  });
  const until = (check: (lines: Line[]) => boolean, what: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting until ${what}; saw ${JSON.stringify(lines.map(brief))}`)),
        20_000,
      );
      const look = (): void => {
        if (check(lines)) {
          clearTimeout(timer);
          resolve();
        } else waiting.push(look);
      };
      look();
    });
  return { child, lines, until };
}

/** `type@machine` (`here` for this machine's own), with the task's title. */
const brief = (line: Line): string => {
  const data = line.data as { task?: { title?: string }; title?: string };
  return `${line.type}@${'machine' in line ? line.machine : 'here'}:${data.task?.title ?? data.title ?? ''}`;
};

/** Only the task events: a task's other events (its files, its column) come and go with the code. */
const tasks = (lines: Line[]): string[] =>
  lines
    .filter((l) => l.type === 'task.added' || l.type === 'task.removed' || l.type === 'task.decided')
    .map(brief);

const addTask = (side: TestBaton, repo: string, title: string): Promise<string> =>
  side.ok(['task', 'add', title], { cwd: repo });

describe('the workspace bus across two machines sharing a store', () => {
  it("shows beta's events on alpha's follow with beta's name, once each, and a follower resuming with its cursor loses and repeats nothing", async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const alphaRepo = alpha.repo();
    const betaRepo = beta.repo();
    const last = (
      await alpha
        .client()
        .call('GET /api/workspace/events', { query: { after: Number.MAX_SAFE_INTEGER, limit: 1 } })
    ).lastSeq;

    const first = follower(alpha, last);
    await addTask(beta, betaRepo, 'b40');
    await first.until(
      (lines) => lines.some((l) => brief(l) === 'task.added@beta:b40'),
      "beta's task reaches alpha's follow",
    );
    await addTask(alpha, alphaRepo, 'a30');
    // A marker from beta after alpha's own: anything echoed or repeated would have arrived before it.
    await addTask(beta, betaRepo, 'b41');
    await first.until(
      (lines) => lines.some((l) => brief(l) === 'task.added@beta:b41'),
      "beta's second task reaches alpha",
    );
    expect(tasks(first.lines)).toEqual(['task.added@beta:b40', 'task.added@here:a30', 'task.added@beta:b41']);
    // One sequence: the cursor a client keeps counts both machines' events.
    const seqs = first.lines.map((l) => l.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    first.child.kill('SIGINT');
    expect(await exitOf(first.child)).toBe(0);

    // While nobody follows: one event on each machine. The follower comes back after its last seq.
    await beta.ok(['task', 'rm', '1'], { cwd: betaRepo }); // b40: the first number of the workspace
    await addTask(alpha, alphaRepo, 'a2');
    const second = follower(alpha, seqs.at(-1)!);
    await addTask(beta, betaRepo, 'b42');
    await second.until(
      (lines) => lines.some((l) => brief(l) === 'task.added@beta:b42'),
      "beta's marker reaches the resumed follow",
    );
    expect(tasks(second.lines)).toEqual(
      expect.arrayContaining(['task.removed@beta:b40', 'task.added@here:a2', 'task.added@beta:b42']),
    );
    expect(tasks(second.lines)).toHaveLength(3);
    expect(second.lines[0]!.seq).toBeGreaterThan(seqs.at(-1)!);
    second.child.kill('SIGINT');
    expect(await exitOf(second.child)).toBe(0);

    // The listing for people marks the other machine's events; beta's shows alpha's in turn.
    const text = await alpha.ok(['events', '--after', String(last)]);
    expect(text.match(/\[beta\] task\.added\s+task 1: b40/g)).toHaveLength(1);
    expect(text).toMatch(/\[beta\] task\.removed\s/);
    expect(text.match(/task 2: a30/g)).toHaveLength(1);
    expect(text).not.toMatch(/\[alpha\]/);
    const onBeta = await beta.ok(['events']);
    expect(onBeta).toMatch(/\[alpha\] task\.added\s+task 2: a30/);
    expect(onBeta).not.toMatch(/\[beta\]/);
    // Another machine's event is not this machine's: its tasks stay its own.
    const board = await alpha.ok(['task', 'ls', '--json'], { cwd: alphaRepo });
    expect(board).not.toMatch(/"title":\s*"b4[012]"/);
  });

  it('keeps publishing on beta while the store is unreachable, and relays what it published once the store is back', async () => {
    const url = await database();
    const alpha = await machine('alpha', url);
    const beta = await machine('beta', url);
    const betaRepo = beta.repo();
    const last = (
      await alpha
        .client()
        .call('GET /api/workspace/events', { query: { after: Number.MAX_SAFE_INTEGER, limit: 1 } })
    ).lastSeq;
    const watching = follower(alpha, last);
    await addTask(beta, betaRepo, 'b40');
    await watching.until((lines) => tasks(lines).length === 1, "beta's first task reaches alpha");

    // The store goes away for both machines: every connection cut, no new one let in.
    // The test server's URLs are a superuser's; this one is to its `postgres` database.
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    const adminUrl = new URL(url);
    adminUrl.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: adminUrl.href });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      // A new task needs the store for its number (decision 147): refused, naming it, and nothing published.
      const refused = await beta.run(['task', 'add', 'b41'], { cwd: betaRepo });
      expect(refused.code, refused.stderr).not.toBe(0);
      expect(refused.stderr).toMatch(/Cannot reach the PostgreSQL store/);
      const started = Date.now();
      await beta.ok(['decide', '1', 'b41'], { cwd: betaRepo });
      await beta.ok(['decide', '1', 'b42'], { cwd: betaRepo });
      expect(Date.now() - started).toBeLessThan(5_000); // local work only: nothing waits for the store
      expect(await beta.ok(['events'])).toMatch(/task 1: decision .*b42/);
      // Beta's relay meets the closed door (SQLSTATE 55000, not a lost connection) and keeps trying.
      await until(
        () =>
          readFileSync(join(beta.home, 'supervisor.log'), 'utf8').includes(
            'did not reach the shared store; trying again',
          ),
        "beta's relay reports the unreachable store",
        { timeoutMs: 20_000 },
      );
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    } finally {
      await admin.end();
    }
    await watching.until(
      (lines) => tasks(lines).length >= 3,
      'what beta published during the outage reaches alpha',
    );
    expect(tasks(watching.lines)).toEqual([
      'task.added@beta:b40',
      'task.decided@beta:b40',
      'task.decided@beta:b40',
    ]);
    watching.child.kill('SIGINT');
    expect(await exitOf(watching.child)).toBe(0);
  });
});
