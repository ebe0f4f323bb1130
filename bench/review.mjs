#!/usr/bin/env node
// `node bench/review.mjs [sessions...]` (after `npm run build`; BATON_BENCH_FILES=400 the repository's size): how long `baton review` takes to
// group N live sessions, each with committed, uncommitted and untracked work in a repository of
// 400 TypeScript files that import each other. Cold is the first listing (TypeScript's parser
// loads, every tree is listed and every changed file scanned); warm repeats it over unchanged work
// (only the snapshots run); "one changed" is after one session edits a file. Medians of 5.
import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure } from './figures.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'baton');
const counts = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const FILES = Number(process.env.BATON_BENCH_FILES ?? 400);
const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};

function baton(home, args, cwd) {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...gitEnv, BATON_HOME: home, BATON_NO_BROWSER: '1' }, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        error ? fail(new Error(`baton ${args.join(' ')}: ${stderr}`)) : done(stdout),
    );
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(home, cwd) {
  const started = performance.now();
  const out = JSON.parse(await baton(home, ['review', '--json'], cwd));
  return { wall: performance.now() - started, server: out.ms, groups: out.projects[0]?.groups.length ?? 0 };
}

async function waitReady(home, cwd, n) {
  for (;;) {
    const sessions = JSON.parse(await baton(home, ['ls', '--json'], cwd));
    if (sessions.length === n && sessions.every((s) => s.state === 'ready_for_review')) return;
    if (sessions.some((s) => s.state === 'failed')) throw new Error('a session failed');
    await new Promise((r) => setTimeout(r, 200)); // a bench polls; tests wait on events
  }
}

async function run(n) {
  const work = mkdtempSync(join(tmpdir(), 'baton-bench-review-'));
  const home = join(work, 'home');
  const repo = join(work, 'repo');
  try {
    mkdirSync(join(repo, 'src'), { recursive: true });
    mkdirSync(join(repo, 'test'), { recursive: true });
    for (let i = 0; i < FILES; i++) {
      const imports = [1, 7]
        .map((d) => (i + d) % FILES)
        .map((j) => `import { f${j} } from './m${j}.js';\n`)
        .join('');
      writeFileSync(
        join(repo, 'src', `m${i}.ts`),
        `${imports}\nexport function f${i}(x: number): number {\n  return x + ${i};\n}\n`,
      );
    }
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env: gitEnv });
    execFileSync('git', ['add', '.'], { cwd: repo, env: gitEnv });
    execFileSync('git', ['commit', '-qm', 'init'], { cwd: repo, env: gitEnv });

    for (let s = 0; s < n; s++) {
      // Session s edits three modules far apart, commits one, and adds a test of a fourth.
      const at = (k) => (s * 37 + k * 101) % FILES;
      const edit = (i) => ({
        edit: { path: `src/m${i}.ts`, old: `return x + ${i};`, new: `return x + ${i} + ${s};` },
      });
      const steps = [
        edit(at(0)),
        { run: ['git', 'commit', '-qam', 'first'] },
        edit(at(1)),
        edit(at(2)),
        {
          write: {
            path: `test/s${s}.test.ts`,
            content: `import { f${at(3)} } from '../src/m${at(3)}.js';\nf${at(3)}(1);\n`,
          },
        },
      ];
      const script = join(work, `s${s}.json`);
      writeFileSync(script, JSON.stringify({ steps }));
      await baton(home, ['dispatch', `s${s}`, '--name', `s${s}`, '--script', script], repo);
    }
    await waitReady(home, repo, n);

    const cold = await timed(home, repo);
    // The largest group's combined review: merged, diffed and attributed, then again from the cache.
    const detail = [];
    for (let k = 0; k < 3; k++) {
      const started = performance.now();
      const view = JSON.parse(await baton(home, ['review', 's0', '--json'], repo));
      detail.push({
        wall: performance.now() - started,
        members: view.members.length,
        files: view.files.length,
      });
    }
    const warm = [];
    const bare = [];
    for (let k = 0; k < 5; k++) {
      warm.push(await timed(home, repo));
      // Its floor, taken in turn: a bare Node start.
      const t0 = performance.now();
      execFileSync(process.execPath, ['-e', '0']);
      bare.push(performance.now() - t0);
    }
    figure({
      section: 'review',
      name: `review warm ${n} sessions`,
      value: median(warm.map((w) => w.wall)),
      unit: 'ms',
      floor: median(bare),
      floorName: 'bare node -e 0',
    });
    // One session's work changes: only its snapshot is analysed again.
    const worktree = JSON.parse(await baton(home, ['peek', 's0', '--json'], repo)).session.worktree;
    const changedRuns = [];
    for (let k = 0; k < 5; k++) {
      const file = join(worktree, 'src', 'm0.ts');
      writeFileSync(file, readFileSync(file, 'utf8') + `// touch ${k}\n`);
      changedRuns.push(await timed(home, repo));
    }
    console.log(
      `${String(n).padStart(3)} sessions, ${warm[0].groups} groups: cold ${cold.wall.toFixed(0)} ms (supervisor ${cold.server} ms); ` +
        `warm ${median(warm.map((w) => w.wall)).toFixed(0)} ms (supervisor ${median(warm.map((w) => w.server))} ms); ` +
        `one changed ${median(changedRuns.map((w) => w.wall)).toFixed(0)} ms (supervisor ${median(changedRuns.map((w) => w.server))} ms); ` +
        `combined review of s0's group (${detail[0].members} sessions, ${detail[0].files} files) ${detail[0].wall.toFixed(0)} ms first, ${median(detail.slice(1).map((d) => d.wall)).toFixed(0)} ms again`,
    );
  } finally {
    try {
      await baton(home, ['daemon', 'stop', '--all'], repo);
    } catch {
      // not running
    }
    // Session hosts outlive the supervisor by design: stop each by its own pid.
    for (const id of existsSync(join(home, 'sessions')) ? readdirSync(join(home, 'sessions')) : []) {
      try {
        process.kill(
          JSON.parse(readFileSync(join(home, 'sessions', id, 'host.json'), 'utf8')).pid,
          'SIGKILL',
        );
      } catch {
        // gone already
      }
    }
    rmSync(work, { recursive: true, force: true });
  }
}

for (const n of counts.length > 0 ? counts : [10, 20]) await run(n);

// Review coupling's corpus (src/review/corpus): sessions that must be reviewed together and
// sessions that must stay apart, through the real grouping on real repositories.
{
  const { scoreCouplingCorpus } = await import(join(ROOT, 'dist/review/corpus/index.js'));
  const t0 = performance.now();
  const corpus = await scoreCouplingCorpus();
  console.log(
    `coupling corpus: ${corpus.results.length} cases, ${corpus.pairs} pairs judged: ${corpus.falseAlarms} false alarms (grouped, should not be), ${corpus.misses} misses (${(performance.now() - t0).toFixed(0)} ms)`,
  );
  for (const r of corpus.results)
    for (const p of r.falseAlarms) console.log(`  ${r.name}: ${p} grouped, should stay apart`);
  for (const r of corpus.results)
    for (const p of r.misses) console.log(`  ${r.name}: ${p} apart, should be grouped`);
}
