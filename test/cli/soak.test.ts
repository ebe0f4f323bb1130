/**
 * The soak (decision 175): one workspace, its supervisor killed -9 again and again at step
 * boundaries chosen at random — a merge's journaled steps, a task's writes (add, edit, move, note,
 * decision), a routine's catch-up of a fire missed while Baton was stopped — each time started
 * again, left to recover, and checked: 0 lost (every acknowledged write, and every write whose
 * kill came after its commit, is there), 0 duplicated (no task, entry, event, landing or routine
 * run twice), 0 stuck (no merge queued, no session or routine run left mid-way), 0 orphans (no
 * worktree, branch, scratch worktree or process without its owner).
 *
 * The kill is placed by the supervisor itself at a named point (`BATON_TEST_CRASH_AT`), never by a
 * timer. `npm test` runs one kill of each kind with a fixed seed; `npm run soak` sets
 * BATON_SOAK_KILLS (default 100) and draws a seed, printed with the summary so that
 * `BATON_SOAK_SEED=<seed>` replays the same kills.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { MergeListView, MergeResult } from '../../src/api/merge.js';
import type { TaskDetail } from '../../src/api/tasks.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import type { RoutineRunView } from '../../src/routines/index.js';
import { TestBaton } from '../support/baton.js';
import { FakeClock } from '../support/fake-clock.js';
import { callApi } from '../support/http.js';
import { configure } from '../support/landing.js';
import { watchExit } from '../support/process.js';
import { pollUntil } from '../support/wait.js';

const SOAK = Number(process.env.BATON_SOAK_KILLS ?? 0);
const SEED =
  process.env.BATON_SOAK_SEED !== undefined && process.env.BATON_SOAK_SEED !== ''
    ? Number(process.env.BATON_SOAK_SEED)
    : SOAK > 0
      ? Math.floor(Math.random() * 1_000_000)
      : 7;

/** The step boundaries, by kind: each is a `crashPoint` in the supervisor's code. */
const POINTS = {
  merge: [
    'merge.queued',
    'merge.started',
    'merge.checked',
    'merge.base-moved',
    'merge.advanced',
    'merge.retired',
    'merge.finished',
  ],
  task: ['task.added', 'task.edited', 'task.moved', 'task.entry-written', 'task.noted', 'task.decided'],
  routine: ['routine.recorded', 'routine.dispatched', 'routine.fired'],
} as const;
type Kind = keyof typeof POINTS;
const KINDS = Object.keys(POINTS) as Kind[];
/** Kinds in turn (so even three kills cover each), the point within a kind drawn at random. */
const KILLS = SOAK > 0 ? SOAK : KINDS.length;

/** mulberry32: the same draws for the same seed. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

let t: TestBaton;
let repo: string;
let clock: FakeClock;
beforeAll(async () => {
  t = new TestBaton();
  repo = t.repo();
  clock = await FakeClock.start(t.root);
  Object.assign(t.env, clock.env(), { BATON_TEST_CRASH_FILE: join(t.root, 'crash-at') });
});
afterAll(() => {
  t.cleanup();
  clock.stop();
});

/** What the workspace must hold, built from what was acknowledged (or committed before its kill). */
interface Expected {
  tasks: Map<number, { title: string; description: string; column: string }>;
  entries: Map<number, { kind: 'decisions' | 'notes'; text: string }[]>;
  /** Landed merges: the commit, and the file each session added. */
  landings: { commit: string; files: string[] }[];
  /** Sessions a merge left unlanded: each must still be there, mergeable. */
  unlanded: Set<string>;
  /** Due fires of the hourly routine so far (one per jump of the clock). */
  fires: number;
}

interface Counts {
  lost: string[];
  duplicated: string[];
  stuck: string[];
  orphans: string[];
}

const expected: Expected = {
  tasks: new Map(),
  entries: new Map(),
  landings: [],
  unlanded: new Set(),
  fires: 0,
};
const found: Counts = { lost: [], duplicated: [], stuck: [], orphans: [] };
/** Seconds the fake clock is ahead. */
let offset = 0;
let serial = 0;
/** Sessions whose merge a kill cut off, merged again afterwards. */
let remerged = 0;

/** The file that arms the running supervisor (`BATON_TEST_CRASH_FILE`). */
const crashFile = (): string => join(t.root, 'crash-at');

/** Arms the running supervisor to kill itself at `point` (the first time it is reached from now). */
function arm(point: string): number {
  const pid = t.supervisorPid();
  writeFileSync(crashFile(), `${point} ${pid}\n`);
  return pid;
}

/**
 * Starts a supervisor that kills itself at `point`: for a point reached while it catches up, which
 * runs once it listens, so the kill may come before `daemon start` has its answer — the new pid in
 * supervisor.json says it started.
 */
async function armedStart(point: string): Promise<number> {
  const json = join(t.home, 'supervisor.json');
  const previous = existsSync(json) ? t.supervisorPid() : undefined;
  const started = await t.run(['daemon', 'start'], { env: { BATON_TEST_CRASH_AT: point } });
  const pid = existsSync(json) ? t.supervisorPid() : undefined;
  if (pid === undefined || pid === previous) throw new Error(`daemon start failed: ${started.stderr}`);
  return pid;
}

/** Waits for the armed supervisor to be gone, then disarms. */
async function died(pid: number, timeoutMs = 30_000): Promise<void> {
  await watchExit(pid, timeoutMs);
  rmSync(crashFile(), { force: true });
}

/** A running supervisor, recovered: started when there is none, waited on until caught up. */
async function recovered(): Promise<void> {
  await t.ok(['daemon', 'start']);
  await pollUntil(
    () => callApi(t.home, 'GET', '/api/health'),
    (health) => (health.body as { phase?: string }).phase === 'ready',
    'the supervisor has caught up',
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

async function allEvents(): Promise<WorkspaceEvent[]> {
  const events: WorkspaceEvent[] = [];
  for (;;) {
    const after = events.at(-1)?.seq ?? 0;
    const page = await t.client().call('GET /api/workspace/events', { query: { after } });
    if (page.events.length === 0) return events;
    events.push(...(page.events as WorkspaceEvent[]));
  }
}

// ── the operations, each run on an armed supervisor until it dies ──────────────────────────────

/** A finished session with one committed file of its own. */
async function readySession(): Promise<string> {
  const name = `m${++serial}`;
  const script = t.script([
    { write: { path: `${name}.txt`, content: `${name}\n` } },
    { run: ['git', 'add', '--all'] },
    { run: ['git', 'commit', '-qm', `${name}: work`] },
  ]);
  await t.ok(['dispatch', `${name}: work`, '--name', name, '--script', script], { cwd: repo });
  await t.waitForState(name, 'ready_for_review', 30_000);
  return name;
}

async function mergeKill(point: string, random: () => number): Promise<string> {
  const pid = arm(point);
  // Sometimes a group: its members land together or not at all.
  const names = [await readySession(), ...(random() < 0.3 ? [await readySession()] : [])];
  // The CLI follows the merge into the next supervisor (it starts one when it lost its own).
  const run = await t.run(['merge', ...names, '--json'], { cwd: repo });
  await died(pid);
  const result = run.stdout.trim() === '' ? undefined : (JSON.parse(run.stdout) as MergeResult | undefined);
  if (result?.outcome === 'landed' && result.commit !== undefined && result.commit !== null)
    expected.landings.push({ commit: result.commit, files: names.map((n) => `${n}.txt`) });
  else for (const name of names) expected.unlanded.add(name);
  return `${names.join('+')}: ${result?.outcome ?? `no answer (exit ${run.code})`}`;
}

type TaskOp = 'task.added' | 'task.edited' | 'task.moved' | 'task.noted' | 'task.decided';

/** One task write; true when the supervisor answered it. */
async function taskWrite(op: TaskOp, random: () => number): Promise<boolean> {
  const client = t.client(repo);
  const ids = [...expected.tasks.keys()];
  const id = ids.length === 0 || op === 'task.added' ? undefined : ids[Math.floor(random() * ids.length)]!;
  const tag = `w${++serial}`;
  try {
    if (id === undefined) {
      // The add's write is committed before the kill's point: expected either way, told or not.
      const title = `task ${tag}`;
      const pending = client.call('POST /api/tasks', { body: { title, project: repo } });
      const answer = await pending.catch(() => undefined);
      const added =
        answer?.task.id ??
        (
          await t
            .client(repo)
            .call('GET /api/tasks', { query: { all: 'true' } })
            .catch(() => undefined)
        )?.columns
          .flatMap((c) => c.tasks)
          .find((task) => task.title === title)?.id;
      if (added !== undefined) expected.tasks.set(added, { title, description: '', column: 'backlog' });
      else if (answer === undefined)
        expected.tasks.set(-serial, { title, description: '', column: 'backlog' });
      return answer !== undefined;
    }
    const task = expected.tasks.get(id)!;
    if (op === 'task.edited') {
      task.description = `edited ${tag}`;
      await client.call('POST /api/tasks/:id', {
        params: { id: String(id) },
        body: { description: task.description },
      });
    } else if (op === 'task.moved') {
      task.column = task.column === 'backlog' ? 'ready' : 'backlog';
      await client.call('POST /api/tasks/:id/move', {
        params: { id: String(id) },
        body: { column: task.column as 'backlog' | 'ready' },
      });
    } else {
      const kind = op === 'task.decided' ? 'decisions' : 'notes';
      const text = `${kind} ${tag}`;
      const list = expected.entries.get(id) ?? [];
      expected.entries.set(id, list);
      list.push({ kind, text });
      await client.call(`POST /api/tasks/:id/${kind}`, { params: { id: String(id) }, body: { text } });
    }
    return true;
  } catch {
    return false;
  }
}

async function taskKill(point: string, random: () => number): Promise<string> {
  const pid = arm(point);
  const target: TaskOp =
    point === 'task.entry-written' ? (random() < 0.5 ? 'task.noted' : 'task.decided') : (point as TaskOp);
  // Other writes first (answered, so expected), none of the kind that dies: the store is busy.
  const others = (
    ['task.added', 'task.edited', 'task.moved', 'task.noted', 'task.decided'] as TaskOp[]
  ).filter(
    (op) =>
      op !== target && !(point === 'task.entry-written' && (op === 'task.noted' || op === 'task.decided')),
  );
  if (expected.tasks.size === 0 && target !== 'task.added' && !(await taskWrite('task.added', random)))
    throw new Error(`the first task was not added before ${point}`);
  let answered = 0;
  if (expected.tasks.size > 0)
    for (let i = Math.floor(random() * 4); i > 0; i--)
      if (await taskWrite(others[Math.floor(random() * others.length)]!, random)) answered++;
  const told = await taskWrite(target, random);
  await died(pid);
  return `${answered} answered, then ${target} ${told ? 'answered' : 'cut off'}`;
}

async function routineKill(point: string): Promise<string> {
  // The supervisor is down (killed last time, or stopped): an hour and a bit passes, one fire is missed.
  await t.ok(['daemon', 'stop']);
  offset += 3600 + 120;
  clock.set(offset);
  expected.fires++;
  const pid = await armedStart(point);
  await died(pid, 60_000);
  return 'catch-up cut off';
}

/** Sessions a cut-off merge left: merged again now (on a supervisor with no crash point) — they must land. */
async function mergeAgain(): Promise<void> {
  const live = await t.json<SessionView[]>(['ls']);
  for (const name of [...expected.unlanded]) {
    if (!live.some((s) => s.name === name)) continue;
    const again = await t.run(['merge', name, '--json'], { cwd: repo });
    const result = again.stdout.trim() === '' ? undefined : (JSON.parse(again.stdout) as MergeResult);
    if (result?.outcome !== 'landed' || result.commit === null || result.commit === undefined) {
      found.stuck.push(`${name} cannot be merged again: ${again.stderr}${again.stdout}`);
      continue;
    }
    expected.unlanded.delete(name);
    remerged++;
    expected.landings.push({ commit: result.commit, files: [`${name}.txt`] });
  }
}

// ── the invariants ──────────────────────────────────────────────────────────────────────────────

const SETTLED = new Set(['ready_for_review', 'needs_input', 'completed', 'failed', 'stopped']);

async function check(kill: number): Promise<void> {
  const at = `kill ${kill}`;
  // Stuck: nothing left queued or mid-way once the supervisor has caught up (bounded waits).
  const merges = await pollUntil(
    () => t.json<MergeListView>(['merge']),
    (list) => list.queue.length === 0,
    'the merge queue is empty',
    { timeoutMs: 30_000, intervalMs: 200 },
  ).catch((error: unknown) => {
    found.stuck.push(`${at}: ${String(error)}`);
    return undefined;
  });
  const runs = await pollUntil(
    async () =>
      (
        await t.client(repo).call('GET /api/routines/:name/history', {
          params: { name: 'hourly' },
          query: { limit: 1000 },
        })
      ).runs,
    (list) => list.every((run) => run.outcome !== 'running'),
    'every routine run has ended',
    { timeoutMs: 30_000, intervalMs: 200 },
  ).catch((error: unknown) => {
    found.stuck.push(`${at}: ${String(error)}`);
    return [] as RoutineRunView[];
  });
  const live = await pollUntil(
    () => t.json<SessionView[]>(['ls']),
    (list) => list.every((s) => SETTLED.has(s.state)),
    'every session has settled',
    { timeoutMs: 30_000, intervalMs: 200 },
  ).catch(async (error: unknown) => {
    found.stuck.push(`${at}: ${String(error)}`);
    return t.json<SessionView[]>(['ls']);
  });

  const events = await allEvents();
  const count = (type: string, key: (e: WorkspaceEvent) => unknown): Map<unknown, number> => {
    const counts = new Map<unknown, number>();
    for (const e of events) if (e.type === type) counts.set(key(e), (counts.get(key(e)) ?? 0) + 1);
    return counts;
  };
  const seqs = new Set(events.map((e) => e.seq));
  if (seqs.size !== events.length) found.duplicated.push(`${at}: a workspace event seq twice`);

  // Tasks: each expected one there once, with its last acknowledged fields, and added once in the log.
  const board = await t.client(repo).call('GET /api/tasks', { query: { all: 'true' } });
  const cards = board.columns.flatMap((c) => c.tasks);
  const added = count('task.added', (e) => (e.data as { task: { id: number } }).task.id);
  const byTitle = new Map<string, number>();
  for (const card of cards) byTitle.set(card.title, (byTitle.get(card.title) ?? 0) + 1);
  for (const [title, n] of byTitle) if (n > 1) found.duplicated.push(`${at}: task "${title}" ${n} times`);
  for (const [id, n] of added)
    if (n > 1) found.duplicated.push(`${at}: task.added of ${String(id)} ${n} times`);
  for (const [id, want] of expected.tasks) {
    const card = cards.find((c) => c.title === want.title);
    if (card === undefined) {
      found.lost.push(`${at}: task ${id} "${want.title}"`);
      continue;
    }
    if (id < 0) {
      // Added while the kill came: found by its title now.
      expected.tasks.delete(id);
      expected.tasks.set(card.id, want);
    }
    if (card.description !== want.description)
      found.lost.push(`${at}: task ${card.id} description "${card.description}", want "${want.description}"`);
    if (card.column !== want.column)
      found.lost.push(`${at}: task ${card.id} in ${card.column}, want ${want.column}`);
    if ((added.get(card.id) ?? 0) === 0) found.lost.push(`${at}: task ${card.id} has no task.added event`);
  }
  for (const [id, entries] of expected.entries) {
    const detail: TaskDetail = await t
      .client(repo)
      .call('GET /api/tasks/:id', { params: { id: String(id) } });
    if (detail.broken.length > 0)
      found.lost.push(`${at}: task ${id} broken entries ${JSON.stringify(detail.broken)}`);
    for (const want of entries) {
      const n = detail[want.kind].filter((e) => e.text === want.text).length;
      if (n === 0) found.lost.push(`${at}: task ${id} ${want.kind} "${want.text}"`);
      if (n > 1) found.duplicated.push(`${at}: task ${id} ${want.kind} "${want.text}" ${n} times`);
    }
  }
  for (const type of ['task.noted', 'task.decided'])
    for (const [text, n] of count(type, (e) => (e.data as { taskId: number; text: string }).text))
      if (n > 1) found.duplicated.push(`${at}: ${type} "${String(text)}" ${n} times`);

  // Merges: each acknowledged landing on the base with its files, landed once in the log; each
  // unlanded session still there, ready to merge again; no merge result twice.
  for (const landing of expected.landings) {
    try {
      execFileSync('git', ['merge-base', '--is-ancestor', landing.commit, 'main'], { cwd: repo, env: t.env });
    } catch {
      found.lost.push(`${at}: landed commit ${landing.commit} is not on main`);
    }
    for (const file of landing.files)
      if (!t.git(repo, 'ls-tree', '--name-only', 'main').split('\n').includes(file))
        found.lost.push(`${at}: ${file} is not on main`);
  }
  for (const [mergeId, n] of count('merge.landed', (e) => (e.data as { mergeId: string }).mergeId))
    if (n > 1) found.duplicated.push(`${at}: merge.landed of ${String(mergeId)} ${n} times`);
  const recent = merges?.recent ?? [];
  const ids = new Set(recent.map((r) => r.mergeId));
  if (ids.size !== recent.length) found.duplicated.push(`${at}: a merge result listed twice`);
  for (const name of expected.unlanded) {
    const session = live.find((s) => s.name === name);
    const onMain = t.git(repo, 'ls-tree', '--name-only', 'main').split('\n').includes(`${name}.txt`);
    if (session === undefined && !onMain) found.lost.push(`${at}: unlanded session ${name} is gone`);
    else if (session !== undefined && onMain)
      found.duplicated.push(`${at}: ${name} landed and still listed as ${session.state}`);
  }

  // Routines: one run per missed due time, none twice.
  const dues = new Map<string | null, number>();
  for (const run of runs) dues.set(run.dueAt, (dues.get(run.dueAt) ?? 0) + 1);
  for (const [due, n] of dues) if (n > 1) found.duplicated.push(`${at}: routine run for ${due} ${n} times`);
  if (dues.size < expected.fires)
    found.lost.push(`${at}: ${expected.fires} fires missed, ${dues.size} runs recorded`);
  if (dues.size > expected.fires)
    found.duplicated.push(`${at}: ${dues.size} runs for ${expected.fires} fires`);
  // A routine's session is its run's: one no run knows of would never be settled or archived.
  for (const session of live)
    if (session.name.startsWith('hourly-') && !runs.some((run) => run.sessionName === session.name))
      found.orphans.push(`${at}: session ${session.name} (${session.state}) belongs to no routine run`);
  for (const [runId, n] of count('routine.fired', (e) => (e.data as { runId: number }).runId))
    if (n > 1) found.duplicated.push(`${at}: routine.fired of run ${String(runId)} ${n} times`);

  // Orphans: worktrees and branches each of a live session; no scratch worktree of a merge; no
  // process but the supervisor, its spare host and the live sessions' hosts (and their agents).
  const worktrees = t
    .git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree ') && line.includes(t.home))
    .map((line) => line.slice('worktree '.length));
  for (const dir of worktrees)
    if (!live.some((s) => s.worktree === dir)) found.orphans.push(`${at}: worktree ${dir}`);
  for (const branch of t.git(repo, 'branch', '--list', 'baton/*', '--format=%(refname:short)').split('\n'))
    if (branch !== '' && !live.some((s) => s.branch === branch))
      found.orphans.push(`${at}: branch ${branch}`);
  const mergesDir = join(t.home, 'merges');
  if (existsSync(mergesDir) && execFileSync('ls', [mergesDir], { encoding: 'utf8' }).trim() !== '')
    found.orphans.push(`${at}: scratch worktrees left in merges/`);
  const supervisor = t.supervisorPid();
  const hosts = new Set(live.map((s) => s.hostPid));
  const owned = (pid: number): boolean => {
    // A descendant of the supervisor or of a live host (an agent, a tool, a check) is owned.
    for (let p = pid, hops = 0; p > 1 && hops < 20; hops++) {
      if (p === supervisor || hosts.has(p)) return true;
      try {
        p = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      } catch {
        return true; // gone
      }
    }
    return false;
  };
  const candidates = t.processes().filter((p) => !owned(p.pid) && !p.cmdline.includes('--warm'));
  for (const p of candidates) {
    // A host of a landed session exits by itself a moment after: only what stays is left over.
    const gone = await watchExit(p.pid, 15_000).then(
      () => true,
      () => false,
    );
    if (!gone) found.orphans.push(`${at}: process ${p.pid} ${p.cmdline}`);
  }
}

describe('the soak: kill -9 at random step boundaries of merges, task writes and routine catch-up', () => {
  it(
    'loses nothing, duplicates nothing, leaves nothing stuck and no orphan',
    { timeout: 120_000 + KILLS * 60_000 },
    async () => {
      configure(t, repo, { merge: { check: 'true' } });
      const quiet = t.script([{ say: 'NOTHING TO REPORT' }]);
      await t.ok(
        [
          'routine',
          'add',
          'hourly',
          '--cron',
          '0 * * * *',
          '--agent',
          'scripted',
          '--prompt',
          'look',
          '--script',
          quiet,
        ],
        { cwd: repo },
      );
      await recovered();
      const random = generator(SEED);
      const byPoint = new Map<string, number>();
      const log: string[] = [];
      const startedAt = performance.now();
      let failure: unknown;
      let current = '';
      try {
        for (let kill = 1; kill <= KILLS; kill++) {
          const kind = KINDS[(kill - 1) % KINDS.length]!;
          const point = POINTS[kind][Math.floor(random() * POINTS[kind].length)]!;
          byPoint.set(point, (byPoint.get(point) ?? 0) + 1);
          current = `${kill} ${point}`;
          const what =
            kind === 'merge'
              ? await mergeKill(point, random)
              : kind === 'task'
                ? await taskKill(point, random)
                : await routineKill(point);
          await recovered();
          await check(kill);
          await mergeAgain();
          log.push(`${kill} ${point}: ${what}`);
          const problems =
            found.lost.length + found.duplicated.length + found.stuck.length + found.orphans.length;
          if (problems > 0) break;
        }
      } catch (error) {
        // The harness itself could not go on: said with the seed and the kill, so it replays.
        failure = error;
      }
      const seconds = Math.round((performance.now() - startedAt) / 1000);
      const table = [
        `soak: seed ${SEED} (BATON_SOAK_SEED=${SEED} replays it), ${log.length} kills in ${seconds} s`,
        '  kills by point: ' + [...byPoint].map(([p, n]) => `${p} ${n}`).join(', '),
        `  | kills | lost | duplicated | stuck | orphans |`,
        `  | ${log.length} | ${found.lost.length} | ${found.duplicated.length} | ${found.stuck.length} | ${found.orphans.length} |`,
        `  tasks ${expected.tasks.size}, entries ${[...expected.entries.values()].flat().length}, landings ${expected.landings.length}, merges cut off and merged again ${remerged}, routine fires ${expected.fires}`,
      ].join('\n');
      console.log(failure === undefined ? table : `${table}\n  stopped at kill ${current}`);
      if (failure instanceof Error) throw failure;
      if (failure !== undefined) throw new Error(`the soak stopped: ${JSON.stringify(failure)}`);
      expect({
        ...found,
        log:
          found.lost.length + found.duplicated.length + found.stuck.length + found.orphans.length > 0
            ? log
            : [],
      }).toEqual({
        lost: [],
        duplicated: [],
        stuck: [],
        orphans: [],
        log: [],
      });
    },
  );
});
