// Conflict radar benchmark (`node bench/run.mjs radar`): a generated repository of 20,000 files,
// 20 live sessions in real worktrees (a few edits each, some overlapping, some committed, most
// not), the radar's full pass and its update after one session's edit, against the raw baseline
// measured in the same run: snapshotting each worktree and `git merge-tree --write-tree` over
// every pair by hand. Then one session lands and two start from the new tip (false alarms on
// them counted), and the radar's corpus is scored (false alarms, misses).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figure } from './figures.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const FILES = 20_000;
const SESSIONS = 20;
const RUNS = Number(process.env.BATON_BENCH_RADAR_RUNS ?? 5);

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p95: at(0.95), min: s[0], n: s.length };
};
const ms = (x) => `${x.toFixed(1)} ms`;

export async function run({ log }) {
  const { ConflictRadar } = await import(join(ROOT, 'dist/radar/index.js'));
  const { openDb } = await import(join(ROOT, 'dist/store/db.js'));
  const { SessionStore } = await import(join(ROOT, 'dist/store/sessions.js'));
  const { WorkspaceBus } = await import(join(ROOT, 'dist/bus/index.js'));
  const { resolveSessionRef } = await import(join(ROOT, 'dist/sessions/resolve.js'));
  const work = mkdtempSync(join(tmpdir(), 'baton-bench-radar-'));
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
  };
  const git = (cwd, ...args) =>
    execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 256 << 20 }).trim();
  const lines = (i, change = {}) =>
    Array.from({ length: 30 }, (_, n) => change[n + 1] ?? `file ${i} line ${n + 1}`).join('\n') + '\n';
  const path = (i) => `d${Math.floor(i / 500)}/f${i}.txt`;
  try {
    const t0 = performance.now();
    const repo = join(work, 'repo');
    for (let i = 0; i < FILES; i++) {
      if (i % 500 === 0) mkdirSync(join(repo, `d${i / 500}`), { recursive: true });
      writeFileSync(join(repo, path(i)), lines(i));
    }
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'init');
    const db = openDb(join(work, 'baton.db'));
    const store = new SessionStore(db);
    const bus = new WorkspaceBus(db);
    const project = store.ensureProject(repo);
    const base = git(repo, 'rev-parse', 'HEAD');
    const sessions = [];
    for (let s = 0; s < SESSIONS; s++) {
      const name = `s${s}`;
      const worktree = join(work, 'wt', name);
      git(repo, 'worktree', 'add', '-q', '-b', `baton/${name}`, worktree, base);
      // Each session: its own file (line 5), and one of three shared files — a hot spot (the
      // same line, sessions 0-4), a soft one (other lines, 5-9) — or a file of its own (10-19).
      const edit = (i, change) => writeFileSync(join(worktree, path(i)), lines(i, change));
      edit(100 + s, { 5: `s${s}` });
      edit(200 + s * 7, { 12: `s${s}`, 20: `s${s}` });
      if (s < 5) edit(1000, { 10: `hot ${s}` });
      else if (s < 10) edit(1500, { [s * 2]: `soft ${s}` });
      else edit(3000 + s, { 1: `s${s}` });
      if (s % 3 === 0) git(worktree, 'commit', '-qam', `work of ${name}`);
      store.insert(
        {
          id: `id-${String(s).padStart(2, '0')}`,
          project_id: project.id,
          name,
          agent: 'scripted',
          prompt: name,
          model: null,
          permission_mode: 'default',
          options_json: '{}',
          branch: `baton/${name}`,
          base_ref: 'main',
          base_commit: base,
          worktree,
        },
        'working',
      );
      sessions.push({ id: `id-${String(s).padStart(2, '0')}`, name, worktree });
    }
    const source = {
      list: () => store.listLive(),
      resolve: (ref) => resolveSessionRef(store.listLive(), ref),
    };
    log(
      `\n## Conflict radar: ${FILES.toLocaleString('en')}-file repository, ${SESSIONS} live sessions (${(SESSIONS * (SESSIONS - 1)) / 2} pairs), median of ${RUNS} (set up in ${ms(performance.now() - t0)})`,
    );

    // Raw baseline, by hand: each worktree's work as a commit (a private index, as the radar's
    // snapshot), then `git merge-tree --write-tree` over every pair.
    const raw = [];
    const rawPair = [];
    const rawSnapshot = [];
    for (let r = 0; r < RUNS; r++) {
      const t1 = performance.now();
      const commits = sessions.map((s) => {
        const ts = performance.now();
        const index = join(work, `raw-index-${s.name}`);
        const e = { ...env, GIT_INDEX_FILE: index };
        writeFileSync(index, readFileSync(join(repo, '.git', 'worktrees', s.name, 'index')));
        execFileSync('git', ['add', '--all', '--', '.'], { cwd: s.worktree, env: e });
        const tree = execFileSync('git', ['write-tree'], {
          cwd: s.worktree,
          env: e,
          encoding: 'utf8',
        }).trim();
        const commit = execFileSync('git', ['commit-tree', tree, '-p', 'HEAD', '-m', 'raw'], {
          cwd: s.worktree,
          env,
          encoding: 'utf8',
        }).trim();
        rawSnapshot.push(performance.now() - ts);
        return commit;
      });
      for (let a = 0; a < commits.length; a++) {
        for (let b = a + 1; b < commits.length; b++) {
          const tp = performance.now();
          try {
            execFileSync('git', ['merge-tree', '--write-tree', '--name-only', commits[a], commits[b]], {
              cwd: repo,
              env,
              stdio: ['ignore', 'pipe', 'ignore'],
            });
          } catch (error) {
            if (error.status !== 1) throw error;
          }
          if (r === 0) rawPair.push(performance.now() - tp);
        }
      }
      raw.push(performance.now() - t1);
    }

    const full = [];
    const fullPair = [];
    let figures;
    for (let r = 0; r < RUNS; r++) {
      const radar = new ConflictRadar({ sessions: source, bus });
      const t1 = performance.now();
      figures = await radar.pass();
      full.push(performance.now() - t1);
      fullPair.push(figures.pairMsP50, figures.pairMsP95);
      if (r === 0) var found = radar.view().conflicts;
    }
    // Updates: one session edits a file (alternately touching the hot spot and its own file), then the pass the edit triggers.
    const radar = new ConflictRadar({ sessions: source, bus });
    await radar.pass();
    const update = [];
    let last;
    for (let r = 0; r < RUNS * 2; r++) {
      const s = sessions[(r * 7) % SESSIONS];
      const i = r % 2 === 0 ? 1000 : 5000 + r;
      writeFileSync(join(s.worktree, path(i)), lines(i, { 10: `update ${r}` }));
      const t1 = performance.now();
      last = await radar.pass([s.id]);
      update.push(performance.now() - t1);
    }
    const steady = [];
    for (let r = 0; r < RUNS; r++) {
      const t1 = performance.now();
      await radar.pass([]);
      steady.push(performance.now() - t1);
    }

    const rw = stats(raw);
    const rp = stats(rawPair);
    const rs = stats(rawSnapshot);
    // The least an update can cost: the edited worktree snapshotted, and one merge-tree of it.
    const floor = rs.p50 + rp.p50;
    const f = stats(full);
    const u = stats(update);
    const st = stats(steady);
    const hot = found.filter((c) => c.level === 'hot').length;
    log(
      `raw by hand: snapshot 20 worktrees + merge-tree over ${rawPair.length} pairs: p50 ${ms(rw.p50)} (p95 ${ms(rw.p95)}); per pair p50 ${ms(rp.p50)}, p95 ${ms(rp.p95)}`,
    );
    log(
      `radar full pass (cold caches): p50 ${ms(f.p50)} (p95 ${ms(f.p95)}) = ${(f.p50 / rw.p50).toFixed(2)}× raw; goal < 2 s: ${f.p95 < 2000 ? 'MET' : 'NOT MET'}`,
    );
    log(
      `  last full pass: ${figures.pairsChecked} pairs checked, ${figures.pairsSkippedDisjoint} settled as disjoint without git, ${figures.gitCalls} git calls, per pair p50 ${ms(figures.pairMsP50)} p95 ${ms(figures.pairMsP95)}; found ${found.length} collisions (${hot} hot)`,
    );
    log(
      `radar update after one session's edit: p50 ${ms(u.p50)} (p95 ${ms(u.p95)}) = ${(u.p50 / rw.p50).toFixed(3)}× raw; goal < 200 ms: ${u.p95 < 200 ? 'MET' : 'NOT MET'}`,
    );
    log(
      `  floor of an update, by hand: one worktree's snapshot (p50 ${ms(rs.p50)}) + one merge-tree (p50 ${ms(rp.p50)}) = ${ms(floor)}; the update = ${(u.p50 / floor).toFixed(2)}× that floor`,
    );
    log(
      `  last update: ${last.snapshots} snapshot, ${last.pairsChecked} pairs recomputed, ${last.pairsCached} from cache, ${last.gitCalls} git calls, per pair p50 ${ms(last.pairMsP50)} p95 ${ms(last.pairMsP95)}`,
    );
    log(`radar pass with nothing changed (membership only): p50 ${ms(st.p50)} (p95 ${ms(st.p95)})`);
    const floorName = 'raw snapshot + merge-tree of every pair';
    figure({
      section: 'radar',
      name: 'radar full pass',
      value: f.p50,
      unit: 'ms',
      floor: rw.p50,
      floorName,
      goal: 2000,
    });
    figure({
      section: 'radar',
      name: 'radar one-edit update',
      value: u.p50,
      unit: 'ms',
      floor: rw.p50,
      floorName,
      goal: 200,
    });

    // A landing in the same world: s0 (one of the five on the hot spot) lands on main and is
    // removed; two sessions start from the new tip, one editing nothing, one a file of its own.
    // Neither touched a landed line: every collision reported for them is a false alarm.
    const s0 = sessions[0];
    git(s0.worktree, 'add', '--all');
    git(s0.worktree, 'commit', '-qm', 'the rest of s0', '--allow-empty');
    git(repo, 'merge', '--no-ff', '-q', '-m', 'land s0', 'baton/s0');
    git(repo, 'worktree', 'remove', '--force', s0.worktree);
    store.markRemoved(s0.id, null);
    const tip = git(repo, 'rev-parse', 'HEAD');
    const late = [];
    for (const [k, name] of ['late0', 'late1'].entries()) {
      const worktree = join(work, 'wt', name);
      git(repo, 'worktree', 'add', '-q', '-b', `baton/${name}`, worktree, tip);
      if (k === 1) writeFileSync(join(worktree, path(9000)), lines(9000, { 3: name }));
      const id = `id-late-${k}`;
      store.insert(
        {
          id,
          project_id: project.id,
          name,
          agent: 'scripted',
          prompt: name,
          model: null,
          permission_mode: 'default',
          options_json: '{}',
          branch: `baton/${name}`,
          base_ref: 'main',
          base_commit: tip,
          worktree,
        },
        'working',
      );
      late.push(id);
    }
    const t2 = performance.now();
    const landed = await radar.pass();
    const landedMs = performance.now() - t2;
    const afterLanding = radar.view().conflicts;
    const falseAlarms = afterLanding.filter(
      (c) => late.includes(c.a.sessionId) || (c.b.kind === 'session' && late.includes(c.b.sessionId)),
    );
    const againstBase = afterLanding.filter((c) => c.b.kind === 'base');
    log(
      `after s0 lands and 2 sessions start from the new tip (one editing nothing, one a file of its own): pass ${ms(landedMs)} (${landed.gitCalls} git calls); ${afterLanding.length} collisions (${afterLanding.filter((c) => c.level === 'hot').length} hot), ${againstBase.length} against the base; false alarms on the new sessions: ${falseAlarms.length} (${falseAlarms.filter((c) => c.level === 'hot').length} hot)`,
    );
    db.close();

    // The corpus (src/radar/corpus): small repositories where a collision must be reported and
    // where the radar must stay quiet (after landings, identical edits, renames…).
    let corpus;
    try {
      const { scoreRadarCorpus } = await import(join(ROOT, 'dist/radar/corpus/index.js'));
      const t3 = performance.now();
      corpus = await scoreRadarCorpus();
      log(
        `radar corpus: ${corpus.results.length} cases, ${corpus.pairs} pairs judged (${corpus.expectedLoud} must be reported): ${corpus.falseAlarms} false alarms, ${corpus.misses} misses (${ms(performance.now() - t3)})`,
      );
      for (const r of corpus.results)
        for (const p of [...r.falseAlarms, ...r.misses])
          log(`  ${r.name}: ${p.between} expected ${p.expected ?? 'quiet'}, found ${p.actual ?? 'quiet'}`);
    } catch (error) {
      log(`radar corpus: not run (${error.message})`);
    }
    return {
      raw: rw,
      rawPair: rp,
      rawSnapshot: rs,
      updateFloor: floor,
      full: f,
      update: u,
      steady: st,
      landing: { ms: landedMs, collisions: afterLanding.length, falseAlarms: falseAlarms.length },
      corpus: corpus && { falseAlarms: corpus.falseAlarms, misses: corpus.misses, pairs: corpus.pairs },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run({ log: (line) => console.log(line) });
