// Gate benchmark (`node bench/run.mjs policy`, after a build): the gate's verdict latency per
// command over its corpus (p50/p99/max, each case judged many times after a warm-up), against
// two raw baselines measured in the same run — the shell parser alone, and a regex list matched
// on the text (what a text matcher would do) — and the corpus's miss and false-block counts for
// the gate and for that regex list.
import { createRequire } from 'node:module';
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

  const count = (verdictOf) => {
    let misses = 0;
    let falseBlocks = 0;
    for (const c of corpus) {
      const got = verdictOf(c);
      if (c.expect !== 'allow' && got === 'allow') misses++;
      if (c.expect === 'allow' && got !== 'allow') falseBlocks++;
    }
    return { misses, falseBlocks };
  };
  const gateCounts = count((c) => policy.evaluate(c.call, CORPUS_CONTEXT, compiled).action);
  const regexCounts = count((c) =>
    c.call.command !== undefined && REGEXES.some((r) => r.test(c.call.command)) ? 'block' : 'allow',
  );
  const should = corpus.filter((c) => c.expect !== 'allow').length;

  log(
    `## policy: the gate over its corpus (${corpus.length} cases: ${should} should block or ask, ${corpus.length - should} should allow; ${ROUNDS} rounds)`,
  );
  log(`gate verdict     p50 ${us(gate.p50)}  p99 ${us(gate.p99)}  max ${us(gate.max)}  (${gate.n} verdicts)`);
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
  log(`cold load of the gate (parser included): ${loadMs.toFixed(0)} ms`);
  return { gate, gateParsed, unparseable, parse, regex, gateCounts, regexCounts, loadMs };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run({ log: (line) => console.log(line) });
