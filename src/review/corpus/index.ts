/**
 * Runs review coupling's corpus (`cases.ts`) through the real grouping: a real repository, a
 * worktree per session with its writes on disk (uncommitted), real session rows, `computeGroups`.
 * A pair grouped but not expected is a false alarm; expected but apart, a miss.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { newId } from '../../shared/ids.js';
import { openDb } from '../../store/db.js';
import { SessionStore, type SessionWithProject } from '../../store/sessions.js';
import { computeGroups } from '../groups.js';
import { WorkAnalyzer } from '../work.js';
import { COUPLING_CASES, type CouplingCase } from './cases.js';

export { COUPLING_CASES, type CouplingCase } from './cases.js';

export interface CouplingResult {
  name: string;
  why: string;
  pairs: number;
  falseAlarms: string[];
  misses: string[];
}

const pairName = (x: string, y: string): string => [x, y].sort().join(' + ');

export async function runCouplingCase(c: CouplingCase): Promise<CouplingResult> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-coupling-'));
  const repo = join(dir, 'repo');
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  const put = (root: string, path: string, text: string | null): void => {
    if (text === null) return rmSync(join(root, path), { force: true });
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const db = openDb(join(dir, 'baton.db'));
  try {
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    git(repo, 'config', 'user.email', 't@example.com');
    git(repo, 'config', 'user.name', 'T');
    for (const [path, text] of Object.entries(c.files)) put(repo, path, text);
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'first');
    const baseCommit = git(repo, 'rev-parse', 'HEAD');
    const store = new SessionStore(db);
    const project = store.ensureProject(repo);
    const sessions: SessionWithProject[] = [];
    for (const [name, writes] of Object.entries(c.sessions)) {
      const worktree = join(dir, 'wt', name);
      git(repo, 'worktree', 'add', '-q', '-b', `baton/${name}`, worktree, baseCommit);
      for (const [path, text] of Object.entries(writes)) put(worktree, path, text);
      const id = newId();
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
          base_commit: baseCommit,
          worktree,
        },
        'working',
      );
      sessions.push(store.get(id)!);
    }
    const { groups } = await computeGroups(new WorkAnalyzer(), sessions);
    const nameOf = new Map(sessions.map((s) => [s.id, s.name]));
    const grouped = new Set<string>();
    for (const g of groups)
      g.members.forEach((x, i) =>
        g.members.slice(i + 1).forEach((y) => grouped.add(pairName(nameOf.get(x)!, nameOf.get(y)!))),
      );
    const expected = new Set(c.coupled.map(([x, y]) => pairName(x, y)));
    const names = sessions.map((s) => s.name);
    return {
      name: c.name,
      why: c.why,
      pairs: (names.length * (names.length - 1)) / 2,
      falseAlarms: [...grouped].filter((p) => !expected.has(p)),
      misses: [...expected].filter((p) => !grouped.has(p)),
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function scoreCouplingCorpus(cases: CouplingCase[] = COUPLING_CASES): Promise<{
  results: CouplingResult[];
  pairs: number;
  falseAlarms: number;
  misses: number;
}> {
  const results: CouplingResult[] = [];
  for (const c of cases) results.push(await runCouplingCase(c));
  return {
    results,
    pairs: results.reduce((n, r) => n + r.pairs, 0),
    falseAlarms: results.reduce((n, r) => n + r.falseAlarms.length, 0),
    misses: results.reduce((n, r) => n + r.misses.length, 0),
  };
}
