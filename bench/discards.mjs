// Discard classifier benchmark (`node bench/run.mjs discards`, after a build): over its corpus
// (src/policy/corpus/discards), the classifier's latency per command line (p50/p99/max, each case
// many times after a warm-up), its misses and false checkpoints, and the cost of one checkpoint
// on a real repository (a file changed, a file added), fresh and with the work unchanged.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const ROUNDS = Number(process.env.BATON_BENCH_DISCARDS_ROUNDS ?? 100);

const stats = (xs) => {
  const s = Float64Array.from(xs).sort();
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1], n: s.length };
};
const ms = (x) => `${x.toFixed(2)} ms`;

export async function run({ log }) {
  const { discardsWork } = await import(join(ROOT, 'dist/policy/discards.js'));
  const { loadDiscardCorpus, DISCARD_CONTEXT } = await import(
    join(ROOT, 'dist/policy/corpus/discards/index.js')
  );
  const { corpusDisk } = await import(join(ROOT, 'dist/policy/corpus/index.js'));
  const { takeCheckpoint } = await import(join(ROOT, 'dist/worktrees/checkpoint.js'));
  const corpus = loadDiscardCorpus();
  // With the corpus's disk, as the test judges: the scripts a line runs are read too.
  const disk = corpusDisk();
  const judge = (c) =>
    discardsWork(c.command, DISCARD_CONTEXT.worktree, DISCARD_CONTEXT.home, disk) !== undefined;
  for (const c of corpus) judge(c);
  const samples = { checkpoint: [], quiet: [] };
  for (let r = 0; r < ROUNDS; r++)
    for (const c of corpus) {
      const start = performance.now();
      judge(c);
      samples[c.checkpoint ? 'checkpoint' : 'quiet'].push(performance.now() - start);
    }
  const misses = corpus.filter((c) => c.checkpoint && !judge(c)).length;
  const falseCheckpoints = corpus.filter((c) => !c.checkpoint && judge(c)).length;
  const should = corpus.filter((c) => c.checkpoint).length;
  log(
    `## discards: the classifier over its corpus (${corpus.length} lines: ${should} must take a checkpoint, ${corpus.length - should} must not; ${ROUNDS} rounds)`,
  );
  for (const [verdict, xs] of Object.entries(samples)) {
    const s = stats(xs);
    log(`${verdict.padEnd(11)} p50 ${ms(s.p50)}  p99 ${ms(s.p99)}  max ${ms(s.max)}  (${s.n} verdicts)`);
  }
  log(`corpus      ${misses} missed, ${falseCheckpoints} false checkpoints`);

  const repo = mkdtempSync(join(tmpdir(), 'baton-bench-checkpoint-'));
  try {
    const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
    git('init', '-q');
    for (let i = 0; i < 200; i++) writeFileSync(join(repo, `f${i}.txt`), `file ${i}\n`);
    git('add', '.');
    git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'init');
    const fresh = [];
    const unchanged = [];
    for (let i = 0; i < 20; i++) {
      appendFileSync(join(repo, 'f1.txt'), `edit ${i}\n`);
      writeFileSync(join(repo, `new${i}.txt`), 'new\n');
      let start = performance.now();
      takeCheckpoint(repo, 'bench', 'git reset --hard');
      fresh.push(performance.now() - start);
      start = performance.now();
      takeCheckpoint(repo, 'bench', 'git reset --hard');
      unchanged.push(performance.now() - start);
    }
    const f = stats(fresh);
    const u = stats(unchanged);
    log(
      `checkpoint  fresh p50 ${ms(f.p50)}  p99 ${ms(f.p99)}; unchanged work p50 ${ms(u.p50)}  p99 ${ms(u.p99)}  (200-file repository, 20 each)`,
    );
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run({ log: (line) => console.log(line) });
