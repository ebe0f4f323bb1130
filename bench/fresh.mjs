// Keep-fresh (decision 307), after a build: `node bench/fresh.mjs`. Its judgment scored over its
// corpus (src/fresh/corpus/resting.json: rebase only a resting session; misses and false alarms),
// and on a real repository the time of a clean rebase carrying uncommitted work, and of a
// conflicting one aborted and put back exactly.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const ROUNDS = Number(process.env.BATON_BENCH_FRESH_ROUNDS ?? 5);
const { isResting } = await import(join(ROOT, 'dist/fresh/index.js'));
const { rebaseWorktree } = await import(join(ROOT, 'dist/worktrees/rebase.js'));

const { cases } = JSON.parse(readFileSync(join(ROOT, 'src/fresh/corpus/resting.json'), 'utf8'));
let misses = 0;
let falseAlarms = 0;
for (const c of cases) {
  const said = isResting({
    state: c.state,
    state_reason_json: c.reason === null ? null : JSON.stringify(c.reason),
  });
  if (c.rebase && !said) misses++;
  if (!c.rebase && said) falseAlarms++;
}
const fire = cases.filter((c) => c.rebase).length;
console.log('\n## Keep-fresh (decision 307)\n');
console.log('| figure | value |\n|---|---|');
console.log(
  `| resting corpus | ${cases.length} cases (${fire} must rebase, ${cases.length - fire} must not): ${misses} missed, ${falseAlarms} false alarms |`,
);

const lines = (change = {}) =>
  Array.from({ length: 200 }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const times = { clean: [], conflict: [] };
const root = mkdtempSync(join(tmpdir(), 'baton-bench-fresh-'));
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of ['clean', 'conflict']) {
      const repo = join(root, `${kind}-${r}`);
      const tree = `${repo}-tree`;
      execFileSync('git', ['init', '-q', '-b', 'main', repo], { env });
      writeFileSync(join(repo, 'a.txt'), lines());
      git(repo, 'add', '.');
      git(repo, 'commit', '-qm', 'first');
      git(repo, 'worktree', 'add', '-q', '-b', 'session', tree, 'main');
      writeFileSync(join(tree, 'a.txt'), lines({ 10: 'session' }));
      git(tree, 'commit', '-qam', 'session');
      writeFileSync(join(tree, 'notes.md'), 'uncommitted\n');
      writeFileSync(join(repo, 'a.txt'), lines({ [kind === 'clean' ? 150 : 10]: 'base' }));
      git(repo, 'commit', '-qam', 'base moves');
      const start = performance.now();
      const outcome = await rebaseWorktree(tree, git(repo, 'rev-parse', 'main'));
      times[kind].push(performance.now() - start);
      const expected = kind === 'clean' ? 'rebased' : 'conflict';
      if (outcome.kind !== expected) throw new Error(`${kind}: expected ${expected}, got ${outcome.kind}`);
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `| clean rebase with uncommitted work (median of ${ROUNDS}) | ${median(times.clean).toFixed(0)} ms |`,
);
console.log(
  `| conflicting rebase aborted and put back (median of ${ROUNDS}) | ${median(times.conflict).toFixed(0)} ms |`,
);
