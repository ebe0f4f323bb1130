#!/usr/bin/env node
// Best-of comparison benchmark (`node bench/run.mjs attempts`, after a build): a repository of
// 2,000 files, a best-of-3 of scripted attempts (each edits a few files, leaves them uncommitted),
// a check command. Measured: `baton attempts show` the first time (the check run on every
// attempt in a scratch worktree) and again (nothing changed: no check runs), against the raw
// baseline measured in the same run — by hand, per attempt, `git worktree add --detach` of its
// work, the check, `git worktree remove`, and `git diff --numstat`. And starting a fan-out of 25
// items in batches of 10 against three plain dispatches.
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

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'baton');
const FILES = 2_000;
const ATTEMPTS = 3;
const RUNS = Number(process.env.BATON_BENCH_ATTEMPTS_RUNS ?? 3);
const CHECK = 'git ls-files | wc -l > /dev/null && test -e src/changed-0.txt';

const work = mkdtempSync(join(tmpdir(), 'baton-bench-attempts-'));
const home = join(work, 'home');
const env = {
  ...process.env,
  BATON_HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 256 << 20 }).trim();
const baton = (args, cwd) =>
  new Promise((done, fail) =>
    execFile(process.execPath, [BIN, ...args], { cwd, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      error ? fail(new Error(`baton ${args.join(' ')}: ${stderr}`)) : done(stdout),
    ),
  );
const time = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;

async function waitReady(names, cwd) {
  for (let i = 0; i < 600; i++) {
    const sessions = JSON.parse(await baton(['ls', '--json'], cwd));
    if (names.every((n) => sessions.find((s) => s.name === n)?.state === 'ready_for_review')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('sessions did not finish');
}

try {
  const repo = join(work, 'repo');
  for (let i = 0; i < FILES; i++) {
    if (i % 500 === 0) mkdirSync(join(repo, `d${i / 500}`), { recursive: true });
    writeFileSync(join(repo, `d${Math.floor(i / 500)}`, `f${i}.txt`), `file ${i}\n`);
  }
  mkdirSync(join(repo, '.baton'));
  writeFileSync(join(repo, '.baton', 'config.json'), JSON.stringify({ merge: { check: CHECK } }));
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'init');
  const script = join(work, 'script.json');
  writeFileSync(
    script,
    JSON.stringify({
      steps: [0, 1, 2].map((n) => ({ write: { path: `src/changed-${n}.txt`, content: `changed ${n}\n` } })),
    }),
  );

  // The check runs only once the repository's commands are trusted (decision 161), as a user would.
  await baton(['trust', '--yes'], repo);
  console.log(`## attempts: best-of-${ATTEMPTS} comparison over ${FILES} files, ${RUNS} runs`);
  const first = [];
  const cached = [];
  const rawFirst = [];
  const rawCached = [];
  for (let run = 0; run < RUNS; run++) {
    const group = JSON.parse(
      await baton(
        [
          'dispatch',
          '--best-of',
          String(ATTEMPTS),
          '--name',
          `r${run}`,
          '--script',
          script,
          '--json',
          `run ${run}`,
        ],
        repo,
      ),
    );
    const names = group.attempts.map((a) => a.name);
    await waitReady(names, repo);
    first.push(await time(() => baton(['attempts', 'show', group.id, '--json'], repo)));
    cached.push(await time(() => baton(['attempts', 'show', group.id, '--json'], repo)));
    const sessions = JSON.parse(await baton(['ls', '--json'], repo)).filter((s) => names.includes(s.name));
    // The raw baseline: the same work by hand, one attempt after another.
    rawFirst.push(
      await time(async () => {
        for (const s of sessions) {
          // The work as a commit, through a private index (untracked files included), as a person would script it.
          const index = join(work, `index-${s.name}`);
          const withIndex = { ...env, GIT_INDEX_FILE: index };
          execFileSync('git', ['read-tree', 'HEAD'], { cwd: s.worktree, env: withIndex });
          execFileSync('git', ['add', '--all', '--', '.'], { cwd: s.worktree, env: withIndex });
          const tree = execFileSync('git', ['write-tree'], {
            cwd: s.worktree,
            env: withIndex,
            encoding: 'utf8',
          }).trim();
          const commit = git(s.worktree, 'commit-tree', tree, '-p', 'HEAD', '-m', 'work');
          rmSync(index, { force: true });
          const scratch = join(work, `scratch-${s.name}`);
          git(repo, 'worktree', 'add', '--quiet', '--detach', scratch, commit);
          try {
            execFileSync('sh', ['-c', CHECK], { cwd: scratch, env });
          } catch {}
          git(repo, 'worktree', 'remove', '--force', scratch);
          git(s.worktree, 'diff', '--numstat', s.baseCommit);
        }
      }),
    );
    rawCached.push(
      await time(async () => sessions.forEach((s) => git(s.worktree, 'diff', '--numstat', s.baseCommit))),
    );
  }
  console.log(
    `attempts show, first (${ATTEMPTS} checks): p50 ${ms(p50(first))}; raw by hand ${ms(p50(rawFirst))} (${(p50(first) / p50(rawFirst)).toFixed(2)}×)`,
  );
  console.log(
    `attempts show, again (checks kept): p50 ${ms(p50(cached))}; raw diff --numstat ×${ATTEMPTS} ${ms(p50(rawCached))} (${(p50(cached) / p50(rawCached)).toFixed(2)}×, includes the CLI's start)`,
  );

  const items = join(work, 'items.txt');
  writeFileSync(items, Array.from({ length: 25 }, (_, i) => `item-${i}`).join('\n'));
  const fan = [];
  const plain = [];
  for (let run = 0; run < RUNS; run++) {
    fan.push(
      await time(() =>
        baton(
          [
            'fanout',
            items,
            '--batch',
            '10',
            '--name',
            `f${run}`,
            '--prompt',
            'p',
            '--script',
            script,
            '--json',
          ],
          repo,
        ),
      ),
    );
    plain.push(
      await time(async () => {
        for (let b = 1; b <= 3; b++)
          await baton(['dispatch', 'p', '--name', `d${run}-${b}`, '--script', script, '--json'], repo);
      }),
    );
  }
  console.log(
    `fanout 25 items / batch 10 (3 sessions): p50 ${ms(p50(fan))}; 3 plain dispatches ${ms(p50(plain))} (${(p50(fan) / p50(plain)).toFixed(2)}×)`,
  );
} finally {
  // Session hosts outlive the supervisor by design: each is stopped by its pid.
  const sessions = join(home, 'sessions');
  if (existsSync(sessions)) {
    for (const id of readdirSync(sessions)) {
      const host = join(sessions, id, 'host.json');
      if (existsSync(host))
        try {
          process.kill(JSON.parse(readFileSync(host, 'utf8')).pid, 'SIGKILL');
        } catch {}
    }
  }
  const file = join(home, 'supervisor.json');
  if (existsSync(file)) {
    try {
      execFileSync(process.execPath, [BIN, 'daemon', 'stop', '--all'], { env });
    } catch {}
    try {
      process.kill(JSON.parse(readFileSync(file, 'utf8')).pid, 'SIGTERM');
    } catch {}
  }
  rmSync(work, { recursive: true, force: true });
}
