// Provenance benchmark (`node bench/run.mjs provenance`, after a build): what agent blame costs.
// 1. Per edit event: the supervisor's service following a session's events (a tool call naming a
//    file inside an open turn), µs per event; goal < 1 ms.
// 2. Per turn: the turn's work snapshotted and committed onto the session's chain, in a real
//    repository of 2,000 files with 3 files changed per turn; ms per turn, and that as a share of
//    a 10 s agent turn (the record runs after the turn has ended, off the agent's path); goal < 5%.
// 3. Per landing: notes written for a session of 10 turns over 3 files; ms.
// 4. `baton blame` of a 600-line file in-process against plain `git blame --porcelain` of it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dist = (p) => import(join(ROOT, 'dist', p));
const EVENTS = 200_000;
const TURNS = 10;
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length / 2)], p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] };
};

export async function run({ log }) {
  const { ProvenanceService, recordTurn, noteLanding, blameFile, turnRecord, TurnTracker } =
    await dist('provenance/index.js');
  const work = mkdtempSync(join(tmpdir(), 'baton-bench-provenance-'));
  try {
    // 1. Per event.
    const session = { id: 's', name: 'w1', agent: 'scripted', model: null, task_id: null, prompt: 'p' };
    const { openDb } = await dist('store/db.js');
    const { EvidenceStore } = await dist('store/evidence.js');
    const service = new ProvenanceService({
      bus: { publish: () => ({ seq: 0 }) },
      // Each turn's end writes its claims to the store (decision 290): measured with the events.
      store: new EvidenceStore(openDb(join(work, 'bench.db'))),
      sessions: { get: () => session, eventsAfter: () => [], whileHeld: (_id, work) => work() },
      onEvent: () => () => {},
    });
    const ts = new Date().toISOString();
    service.observe('s', { v: 1, seq: 1, ts, type: 'turn.started', prompt: 'p' });
    const events = Array.from({ length: EVENTS }, (_, i) => ({
      v: 1,
      seq: i + 2,
      ts,
      type: i % 2 === 0 ? 'tool.started' : 'message.added',
      ...(i % 2 === 0
        ? { toolId: `t${i}`, tool: 'Edit', input: `src/f${i % 40}.ts`, files: [`src/f${i % 40}.ts`] }
        : { role: 'assistant', text: 'Edited the file as the plan says.' }),
    }));
    let started = performance.now();
    for (const event of events) service.observe('s', event);
    const perEventUs = ((performance.now() - started) * 1000) / EVENTS;

    // 2. Per turn, in a real repository.
    const repo = join(work, 'repo');
    mkdirSync(repo);
    for (let i = 0; i < 2000; i++) {
      const dir = join(repo, `d${Math.floor(i / 200)}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, `f${i}.txt`),
        Array.from({ length: 20 }, (_, l) => `file ${i} line ${l}`).join('\n') + '\n',
      );
    }
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'init');
    const base = git(repo, 'rev-parse', 'HEAD');
    const tree = join(work, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'baton/w1', tree, base);
    // A worktree an agent has worked in for a while: files older than its index, so git's stat
    // cache holds (a checkout written in the index's own second makes git hash every file again).
    const old = new Date(Date.now() - 3600_000);
    for (let i = 0; i < 2000; i++) utimesSync(join(tree, `d${Math.floor(i / 200)}`, `f${i}.txt`), old, old);
    git(tree, 'update-index', '-q', '--really-refresh');
    const facts = {
      sessionId: 'bench-session',
      name: 'w1',
      agent: 'scripted',
      model: null,
      task: null,
      prompt: 'p',
    };
    const turnMs = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      for (let f = 0; f < 3; f++) {
        const path = join(tree, 'd0', `f${f}.txt`);
        const lines = Array.from({ length: 20 }, (_, l) =>
          l % TURNS === turn - 1 ? `turn ${turn} line ${l}` : null,
        );
        const current = execFileSync('cat', [path], { encoding: 'utf8' }).split('\n');
        writeFileSync(path, current.map((line, l) => lines[l] ?? line).join('\n'));
      }
      const tracker = new TurnTracker(turn - 1);
      tracker.add({ v: 1, seq: 1, ts, type: 'turn.started', prompt: `turn ${turn}` });
      const end = tracker.add({ v: 1, seq: 2, ts, type: 'turn.completed', outcome: 'success' });
      const record = turnRecord(facts, end, null, new Date());
      started = performance.now();
      await recordTurn({ root: repo, worktree: tree, base, record });
      turnMs.push(performance.now() - started);
    }
    const turn = stats(turnMs);
    // The machine's own price of one git process, in the same run: the record is ~8 of them.
    const spawnMs = [];
    for (let i = 0; i < 20; i++) {
      started = performance.now();
      git(tree, 'rev-parse', 'HEAD');
      spawnMs.push(performance.now() - started);
    }
    const spawn = stats(spawnMs);

    // 3. Per landing: the work committed, landed by fast-forward, noted.
    git(tree, 'add', '--all');
    git(tree, 'commit', '-qm', 'work');
    const tip = git(tree, 'rev-parse', 'HEAD');
    git(repo, 'merge', '--ff-only', '-q', tip);
    started = performance.now();
    const noted = await noteLanding({
      root: repo,
      previous: base,
      commit: tip,
      squash: false,
      members: [{ sessionId: 'bench-session', base, tip, head: tip }],
    });
    const noteMs = performance.now() - started;

    // 4. Blame of a 600-line file with notes, against git's own.
    const big = join(repo, 'big.txt');
    writeFileSync(big, Array.from({ length: 600 }, (_, l) => `big ${l}`).join('\n') + '\n');
    git(repo, 'add', 'big.txt');
    git(repo, 'commit', '-qm', 'big');
    const blameMs = [];
    const gitMs = [];
    for (let i = 0; i < 10; i++) {
      started = performance.now();
      await blameFile(repo, 'd0/f0.txt');
      await blameFile(repo, 'big.txt');
      blameMs.push(performance.now() - started);
      started = performance.now();
      git(repo, 'blame', '--porcelain', '--', 'd0/f0.txt');
      git(repo, 'blame', '--porcelain', '--', 'big.txt');
      gitMs.push(performance.now() - started);
    }
    const blame = stats(blameMs);
    const plain = stats(gitMs);

    // 5. The turn-end check's cost beyond the repository's own command (decisions 253, 292): the
    // runner (own process group, time limit) around a command that does nothing, and red→green of
    // two new test files (a scratch worktree of the 2,000-file base, two runs per file).
    const { runCheck } = await dist('merge/check.js');
    const { runRedGreen, isTestFile } = await dist('provenance/red-green.js');
    const { TEST_FILES, NOT_TEST_FILES } = await dist('provenance/test-file-corpus.js');
    const checkMs = [];
    for (let i = 0; i < 10; i++) {
      started = performance.now();
      await runCheck('true', { cwd: tree, timeoutSeconds: 60 });
      checkMs.push(performance.now() - started);
    }
    const check = stats(checkMs);
    mkdirSync(join(tree, 'tests'), { recursive: true });
    writeFileSync(join(tree, 'tests', 'a.test.sh'), 'true\n');
    writeFileSync(join(tree, 'tests', 'b.test.sh'), 'true\n');
    git(tree, 'add', '--all');
    const testTree = git(tree, 'write-tree');
    const redGreenMs = [];
    for (let i = 0; i < 3; i++) {
      const ran = await runRedGreen({
        root: repo,
        base,
        tree: testTree,
        files: ['tests/a.test.sh', 'tests/b.test.sh'],
        scratch: join(work, 'red-green'),
        template: 'sh {file}',
        timeoutSeconds: 60,
        run: (command, cwd, seconds) => runCheck(command, { cwd, timeoutSeconds: seconds }),
      });
      redGreenMs.push(ran.durationMs);
    }
    const redGreen = stats(redGreenMs);
    const corpus = {
      misses: TEST_FILES.filter((p) => !isTestFile(p)).length,
      falseAlarms: NOT_TEST_FILES.filter((p) => isTestFile(p)).length,
      fire: TEST_FILES.length,
      quiet: NOT_TEST_FILES.length,
    };
    return { perEventUs, turn, spawn, noteMs, noted, blame, plain, check, redGreen, corpus };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function print(r) {
  console.log('\n## Provenance (agent blame)');
  console.log(`| figure | value | goal |`);
  console.log(`|---|---|---|`);
  console.log(
    `| per edit event (service following events, ${EVENTS.toLocaleString()} events) | ${r.perEventUs.toFixed(2)} µs | < 1 ms |`,
  );
  console.log(
    `| per turn (snapshot + turn commit, 2,000-file repo, 3 files changed), p50 / p95 | ${r.turn.p50.toFixed(1)} / ${r.turn.p95.toFixed(1)} ms | < 5% of a turn: ${((r.turn.p95 / 10_000) * 100).toFixed(2)}% of a 10 s turn at p95 |`,
  );
  console.log(
    `| one bare git process on this machine now (baseline), p50 | ${r.spawn.p50.toFixed(1)} ms (a turn's record costs ${(r.turn.p50 / r.spawn.p50).toFixed(1)} of them) | — |`,
  );
  console.log(
    `| per landing (notes for ${TURNS} turns over 3 files) | ${r.noteMs.toFixed(1)} ms, ${r.noted.commits} commit(s), ${r.noted.lines} lines noted | — |`,
  );
  console.log(
    `| baton blame of two files (20 and 600 lines) vs plain git blame, p50 | ${r.blame.p50.toFixed(1)} vs ${r.plain.p50.toFixed(1)} ms (${(r.blame.p50 / r.plain.p50).toFixed(2)}×) | — |`,
  );
  console.log(
    `| turn-end check (optional, "verify": {"run": "turn"}): the runner around a command doing nothing, p50 / p95 | ${r.check.p50.toFixed(1)} / ${r.check.p95.toFixed(1)} ms, plus the repository's own command; off the agent's path | reported |`,
  );
  console.log(
    `| red→green of 2 new test files (optional, verify.tests): scratch worktree of the 2,000-file base, 4 runs, p50 / p95 | ${r.redGreen.p50.toFixed(0)} / ${r.redGreen.p95.toFixed(0)} ms, plus the tests themselves | reported |`,
  );
  console.log(
    `| which paths red→green runs as tests (corpus: ${r.corpus.fire} tests, ${r.corpus.quiet} other files) | ${r.corpus.misses} missed, ${r.corpus.falseAlarms} false alarms | 0, 0 |`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) print(await run({ log: console.log }));
