// Search, import and handoff benchmark (`node bench/run.mjs search`, after a build).
// 1. Search: 1,000,000 events in 1,000 sessions' logs, ingested (and indexed) by the real
//    ingestor; queries timed in-process (p50/p95) against `rg -F -i` over the same raw JSONL logs
//    in the same run (`grep -rFi` when rg is missing; said in the output).
// 2. Import: Claude Code–shaped transcript files, files and events per second.
// 3. Handoff pack: size as a fraction of its source transcript, every recorded decision kept.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const EVENTS = Number(process.env.BATON_BENCH_SEARCH_EVENTS ?? 1_000_000);
const SESSIONS = 1000;
const PER_SESSION = Math.ceil(EVENTS / SESSIONS);
const dist = (p) => import(join(ROOT, 'dist', p));

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p95: at(0.95), n: s.length };
};
const ms = (x) => `${x.toFixed(1)} ms`;

// A deterministic vocabulary with a Zipf-like spread: a few words everywhere, most rare.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const syllables = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'ze',
  'pa',
  'qu',
  'ro',
  'be',
  'di',
  'fu',
  'go',
];
const VOCAB = Array.from({ length: 20_000 }, (_, i) => {
  let w = '';
  for (let n = i + 1; n > 0; n = Math.floor(n / 16)) w += syllables[n % 16];
  return w + 'x';
});
const word = () => VOCAB[Math.floor(VOCAB.length * rand() ** 3)];
const sentence = (n) => Array.from({ length: n }, word).join(' ');

function eventFor(seq, i) {
  const ts = new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString();
  const base = { v: 1, seq, ts };
  switch (i % 4) {
    case 0:
      return { ...base, type: 'message.added', role: 'assistant', text: sentence(25) };
    case 1:
      return { ...base, type: 'thinking.added', text: sentence(30) };
    case 2:
      return { ...base, type: 'tool.started', toolId: `t${seq}`, tool: 'Bash', input: `run ${sentence(6)}` };
    default:
      return {
        ...base,
        type: 'tool.finished',
        toolId: `t${seq - 1}`,
        tool: 'Bash',
        ok: true,
        output: sentence(40),
      };
  }
}

async function searchBench(log) {
  const { openDb } = await dist('store/db.js');
  const { SessionStore } = await dist('store/sessions.js');
  const { WorkspaceBus } = await dist('bus/index.js');
  const { Ingestor } = await dist('sessions/ingest.js');
  const { sessionPaths } = await dist('shared/paths.js');
  const home = mkdtempSync(join(tmpdir(), 'baton-bench-search-'));
  try {
    const db = openDb(join(home, 'baton.db'));
    const store = new SessionStore(db);
    const ingestor = new Ingestor(home, db, store, new WorkspaceBus(db));
    const project = store.ensureProject('/bench/repo');
    log(
      `\n## Search over ${EVENTS.toLocaleString('en')} events (${SESSIONS} sessions), against a raw scan of the same JSONL logs`,
    );
    const writeStart = performance.now();
    for (let s = 0; s < SESSIONS; s++) {
      const id = `s${String(s).padStart(4, '0')}`;
      store.insert(
        {
          id,
          project_id: project.id,
          name: id,
          agent: s % 2 === 0 ? 'claude' : 'codex',
          prompt: 'p',
          model: null,
          permission_mode: 'default',
          options_json: '{}',
          branch: `baton/${id}`,
          base_ref: 'main',
          base_commit: '0'.repeat(40),
          worktree: '/w',
        },
        'queued',
      );
      const paths = sessionPaths(home, id);
      mkdirSync(paths.dir, { recursive: true });
      const out = createWriteStream(paths.events);
      for (let i = 0; i < PER_SESSION; i++)
        if (!out.write(JSON.stringify(eventFor(i + 1, i)) + '\n')) await once(out, 'drain');
      out.end();
      await once(out, 'finish');
    }
    log(`- logs written in ${((performance.now() - writeStart) / 1000).toFixed(1)} s`);
    const ingestStart = performance.now();
    for (let s = 0; s < SESSIONS; s++) ingestor.ingest(`s${String(s).padStart(4, '0')}`);
    const ingestS = (performance.now() - ingestStart) / 1000;
    log(
      `- ingested and indexed (one transaction per batch, as the supervisor does): ${ingestS.toFixed(1)} s, ${Math.round(EVENTS / ingestS).toLocaleString('en')} events/s; ${ingestor.search.size().toLocaleString('en')} rows indexed`,
    );

    // Queries: rare and mid-frequency words, two-word queries, prefixes, a phrase, a filter.
    const pick = (lo, hi) => VOCAB[lo + Math.floor(rand() * (hi - lo))];
    const queries = [];
    for (let i = 0; i < 15; i++) queries.push(pick(5000, 20000));
    for (let i = 0; i < 15; i++) queries.push(pick(500, 3000));
    for (let i = 0; i < 10; i++) queries.push(`${pick(200, 2000)} ${pick(200, 2000)}`);
    for (let i = 0; i < 10; i++) queries.push(pick(1000, 8000).slice(0, 6));
    const filtered = queries.slice(0, 10);
    const times = [];
    const hits = [];
    const classes = { rare: [], common: [], 'two words': [], prefix: [], filtered: [] };
    const classOf = (i) => (i < 15 ? 'rare' : i < 30 ? 'common' : i < 40 ? 'two words' : 'prefix');
    for (let round = 0; round < 2; round++) {
      for (const [i, q] of queries.entries()) {
        const t0 = performance.now();
        const found = ingestor.search.search(q, { limit: 20 });
        times.push(performance.now() - t0);
        classes[classOf(i)].push(performance.now() - t0);
        if (round === 0) hits.push(found.length);
      }
      for (const q of filtered) {
        const t0 = performance.now();
        ingestor.search.search(q, { limit: 20, agent: 'codex', since: '2026-01-01T00:05:00Z' });
        times.push(performance.now() - t0);
        classes.filtered.push(performance.now() - t0);
      }
    }
    const s = stats(times);
    log(
      `- Baton search (FTS5, BM25, top 20 with snippets), ${s.n} queries: p50 ${ms(s.p50)}, p95 ${ms(s.p95)} (goal p95 < 100 ms); ${hits.filter((h) => h > 0).length}/${hits.length} queries found something`,
    );

    log(
      `  by kind of query: ${Object.entries(classes)
        .map(([name, xs]) => `${name} p50 ${ms(stats(xs).p50)} / p95 ${ms(stats(xs).p95)}`)
        .join('; ')}`,
    );
    const rg = spawnSync('rg', ['--version']).status === 0;
    const tool = rg ? 'rg -F -i' : 'grep -rFi';
    const scanTimes = [];
    for (const q of queries.slice(0, 8)) {
      const t0 = performance.now();
      const args = rg
        ? ['-F', '-i', '--no-filename', '-m', '1000000', q.split(' ')[0], join(home, 'sessions')]
        : ['-rFi', '-h', q.split(' ')[0], join(home, 'sessions')];
      spawnSync(rg ? 'rg' : 'grep', args, { stdio: ['ignore', 'ignore', 'ignore'] });
      scanTimes.push(performance.now() - t0);
    }
    const r = stats(scanTimes);
    log(
      `- raw scan (${tool} over the JSONL logs, first word only, no ranking), ${r.n} queries: p50 ${ms(r.p50)}, p95 ${ms(r.p95)}${rg ? '' : ' (rg is not installed here: grep -F used)'}`,
    );
    log(
      `- ratio: Baton's p50 is ${(r.p50 / s.p50).toFixed(0)}× faster, p95 ${(r.p95 / s.p95).toFixed(0)}× (goal ≥ 10×)`,
    );
    db.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function importBench(log) {
  const { openDb } = await dist('store/db.js');
  const { SearchIndex, importTranscripts } = await dist('context/index.js');
  const home = mkdtempSync(join(tmpdir(), 'baton-bench-import-'));
  try {
    const FILES = 200;
    const LINES = 500;
    const root = join(home, 'projects');
    for (let f = 0; f < FILES; f++) {
      const dir = join(root, `-repo-${f % 20}`);
      mkdirSync(dir, { recursive: true });
      const id = `00000000-0000-4000-8000-${String(f).padStart(12, '0')}`;
      const lines = [];
      for (let i = 0; i < LINES; i++) {
        const ts = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
        const message =
          i % 3 === 0
            ? { role: 'user', content: sentence(15) }
            : {
                role: 'assistant',
                content: [
                  {
                    type: i % 3 === 1 ? 'text' : 'thinking',
                    [i % 3 === 1 ? 'text' : 'thinking']: sentence(30),
                  },
                ],
              };
        lines.push(
          JSON.stringify({
            type: i % 3 === 0 ? 'user' : 'assistant',
            sessionId: id,
            cwd: '/repo',
            timestamp: ts,
            message,
          }),
        );
        if (i % 10 === 0) lines.push(JSON.stringify({ type: 'attachment', attachment: { type: 'date' } }));
      }
      writeFileSync(join(dir, `${id}.jsonl`), lines.join('\n') + '\n');
    }
    const db = openDb(join(home, 'baton.db'));
    const index = new SearchIndex(db);
    const t0 = performance.now();
    const report = importTranscripts(db, index, 'claude', root);
    const s = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const again = importTranscripts(db, index, 'claude', root);
    const s2 = (performance.now() - t1) / 1000;
    log(
      `\n## Import of Claude Code transcripts (${FILES} files, ${report.events.toLocaleString('en')} events, ${Object.values(report.skipped).reduce((a, b) => a + b, 0)} other lines)`,
    );
    log(
      `- first import: ${s.toFixed(2)} s — ${Math.round(FILES / s)} files/s, ${Math.round(report.events / s).toLocaleString('en')} events/s (indexed included)`,
    );
    log(`- again, nothing new: ${(s2 * 1000).toFixed(0)} ms (${again.events} events read)`);
    db.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function packBench(log) {
  const { buildHandoffPack, transcriptFromEvents } = await dist('context/index.js');
  const events = [];
  for (let i = 0; i < 8000; i++) events.push(eventFor(i + 1, i));
  const transcript = transcriptFromEvents(
    {
      sessionId: 's',
      name: 'long',
      agent: 'claude',
      origin: 'baton',
      prompt: 'design the data model',
      cwd: null,
      startedAt: '2026-01-01T00:00:00Z',
    },
    events,
  );
  const decisions = Array.from({ length: 20 }, (_, i) => ({ title: `Decision ${i}: ${sentence(8)}` }));
  const t0 = performance.now();
  const pack = buildHandoffPack({
    transcript,
    task: `write the migration for ${sentence(4)}`,
    toAgent: 'codex',
    budgetTokens: 8000,
    decisions,
  });
  const took = performance.now() - t0;
  const kept = decisions.filter((d) => pack.text.includes(d.title)).length;
  log(
    `\n## Handoff pack of a long transcript (8,000 events, ${pack.sourceTokens.toLocaleString('en')} tokens, 20 recorded decisions)`,
  );
  log(
    `- pack: ${pack.tokens} tokens of an 8,000 budget = ${((100 * pack.tokens) / pack.sourceTokens).toFixed(1)}% of the source (goal ≤ 10%); decisions kept: ${kept}/20; built in ${ms(took)}`,
  );
}

export async function run({ log }) {
  await searchBench(log);
  await importBench(log);
  await packBench(log);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run({ log: (line) => console.log(line) });
}
