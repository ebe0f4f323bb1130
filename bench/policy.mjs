// Gate benchmark (`node bench/run.mjs policy`, after a build): the gate's verdict latency per
// command over its corpus (p50/p99/max, each case judged many times after a warm-up; and per
// verdict: allow, ask, block), against two raw baselines measured in the same run — the shell
// parser alone, and a regex list matched on the text (what a text matcher would do) — the
// corpus's miss and false-alarm counts for the gate and for that regex list (and for the cases
// of the safety boundary, decisions 157-159, apart), and the whole `baton policy test` command
// against a running supervisor, each run taken in turn with a bare `node -e 0`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const ROUNDS = Number(process.env.BATON_BENCH_POLICY_ROUNDS ?? 200);

/** What a text matcher checks: the dangerous phrases, anywhere in the line. */
const REGEXES = [
  /\brm\s+-[a-zA-Z]*[rR]/,
  /git\s+push\s+.*(-f\b|--force\b|\+)/,
  /git\s+reset\s+--hard/,
  /\b(DROP|TRUNCATE)\s+/i,
  /DELETE\s+FROM/i,
  /\b(npm|cargo|pnpm|yarn)\s+publish/,
  /\bmkfs|\bdd\s+.*of=\/dev\//,
  /-delete\b/,
];

const stats = (xs) => {
  const s = Float64Array.from(xs).sort();
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1], n: s.length };
};
const us = (x) => `${(x * 1000).toFixed(1)} µs`;

export async function run({ log }) {
  const t0 = performance.now();
  const policy = await import(join(ROOT, 'dist/policy/index.js'));
  const loadMs = performance.now() - t0;
  const { loadCorpus, CORPUS_CONTEXT } = await import(join(ROOT, 'dist/policy/corpus/index.js'));
  const sh = createRequire(import.meta.url)('mvdan-sh');
  const parser = sh.syntax.NewParser();
  const corpus = loadCorpus();
  const compiled = policy.compilePolicy();
  const commands = corpus.filter((c) => c.call.command !== undefined);

  const time = (fn, cases) => {
    for (const c of cases) fn(c); // warm-up
    const samples = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of cases) {
        const start = performance.now();
        fn(c);
        samples.push(performance.now() - start);
      }
    }
    return stats(samples);
  };
  const gate = time((c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled), corpus);
  const perVerdict = Object.fromEntries(
    ['allow', 'ask', 'block'].map((verdict) => [
      verdict,
      time(
        (c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled),
        corpus.filter((c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled).action === verdict),
      ),
    ]),
  );
  // A command mvdan/sh cannot parse costs a Go panic inside GopherJS (tens of ms); shown apart.
  const parseable = corpus.filter(
    (c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled).rule !== policy.UNPARSEABLE,
  );
  const gateParsed = time((c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled), parseable);
  const unparseable = time(
    (c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled),
    corpus.filter((c) => !parseable.includes(c)),
  );
  const parse = time((c) => {
    try {
      parser.Parse(c.call.command, '');
    } catch {
      // unparseable cases are part of the corpus
    }
  }, commands);
  const regex = time((c) => REGEXES.some((r) => r.test(c.call.command)), commands);

  const count = (verdictOf, cases = corpus) => {
    let misses = 0;
    let falseBlocks = 0;
    for (const c of cases) {
      const got = verdictOf(c);
      if (c.expect !== 'allow' && got === 'allow') misses++;
      if (c.expect === 'allow' && got !== 'allow') falseBlocks++;
    }
    return { misses, falseBlocks };
  };
  const gateCounts = count((c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled).action);
  const boundary = corpus.filter((c) => c.where.includes('-safety'));
  const boundaryCounts = count((c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled).action, boundary);
  const regexCounts = count((c) =>
    c.call.command !== undefined && REGEXES.some((r) => r.test(c.call.command)) ? 'block' : 'allow',
  );
  const should = corpus.filter((c) => c.expect !== 'allow').length;

  log(
    `## policy: the gate over its corpus (${corpus.length} cases: ${should} should block or ask, ${corpus.length - should} should allow; ${ROUNDS} rounds)`,
  );
  log(`gate verdict     p50 ${us(gate.p50)}  p99 ${us(gate.p99)}  max ${us(gate.max)}  (${gate.n} verdicts)`);
  for (const [verdict, t] of Object.entries(perVerdict))
    log(
      `  ${verdict.padEnd(14)} p50 ${us(t.p50)}  p99 ${us(t.p99)}  max ${us(t.max)}  (${t.n / ROUNDS} cases)`,
    );
  log(
    `  parseable      p50 ${us(gateParsed.p50)}  p99 ${us(gateParsed.p99)}  max ${us(gateParsed.max)}  (${parseable.length} cases)`,
  );
  log(
    `  unparseable    p50 ${us(unparseable.p50)}  p99 ${us(unparseable.p99)}  (${corpus.length - parseable.length} cases: they ask)`,
  );
  log(
    `parser alone     p50 ${us(parse.p50)}  p99 ${us(parse.p99)}  max ${us(parse.max)}  → the gate is ${(gate.p50 / parse.p50).toFixed(1)}× the parse at p50, ${(gate.p99 / parse.p99).toFixed(1)}× at p99`,
  );
  log(`regex list       p50 ${us(regex.p50)}  p99 ${us(regex.p99)}  max ${us(regex.max)}`);
  log(
    `corpus           gate: ${gateCounts.misses} missed, ${gateCounts.falseBlocks} falsely blocked or asked; regex list: ${regexCounts.misses} missed, ${regexCounts.falseBlocks} falsely blocked`,
  );
  log(
    `safety boundary  ${boundary.length} cases: ${boundaryCounts.misses} missed, ${boundaryCounts.falseBlocks} falsely blocked or asked`,
  );
  log(`cold load of the gate (parser included): ${loadMs.toFixed(0)} ms`);
  const command = wholeCommand(log);
  return {
    gate,
    perVerdict,
    gateParsed,
    unparseable,
    parse,
    regex,
    gateCounts,
    regexCounts,
    boundaryCounts,
    loadMs,
    command,
  };
}

/** `baton policy test` end to end (CLI start, API call, verdict) against a bare `node -e 0`, medians. */
function wholeCommand(log) {
  const runs = Number(process.env.BATON_BENCH_POLICY_CLI_RUNS ?? 7);
  const work = mkdtempSync(join(tmpdir(), 'baton-bench-policy-'));
  const home = join(work, 'home');
  const repo = join(work, 'repo');
  const env = { ...process.env, BATON_HOME: home };
  const bin = join(ROOT, 'bin', 'baton');
  const git = (...args) => execFileSync('git', args, { cwd: repo, env, stdio: 'ignore' });
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git('-c', 'user.email=b@b', '-c', 'user.name=b', 'commit', '-q', '--allow-empty', '-m', 'first');
  writeFileSync(join(repo, 'nuke.sh'), 'rm -rf /opt/x\n');
  execFileSync(process.execPath, [bin, 'daemon', 'start'], { cwd: repo, env, stdio: 'ignore' });
  try {
    const cases = [['rm -rf /'], ['npm test'], ['sh nuke.sh']];
    const once = (argv) => {
      const t0 = performance.now();
      execFileSync(process.execPath, argv, { cwd: repo, env, stdio: 'ignore' });
      return performance.now() - t0;
    };
    const bare = [];
    const each = cases.map(() => []);
    for (let r = 0; r < runs; r++)
      cases.forEach((args, i) => {
        bare.push(once(['-e', '0']));
        each[i].push(once([bin, 'policy', 'test', ...args]));
      });
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const base = median(bare);
    log(`\`baton policy test\` end to end (${runs} runs, medians): bare \`node -e 0\` ${base.toFixed(1)} ms`);
    const rows = cases.map((args, i) => {
      const wall = median(each[i]);
      log(
        `  policy test ${JSON.stringify(args[0]).padEnd(14)} ${wall.toFixed(1)} ms (${(wall / base).toFixed(2)}× bare node)`,
      );
      return { command: args[0], wall, ratio: wall / base };
    });
    return { bare: base, rows };
  } finally {
    try {
      execFileSync(process.execPath, [bin, 'daemon', 'stop'], { cwd: repo, env, stdio: 'ignore' });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run({ log: (line) => console.log(line) });
