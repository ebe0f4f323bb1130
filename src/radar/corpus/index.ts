/**
 * Runs the radar's corpus (`cases.ts`): each case on a real repository with real worktrees (see
 * `RadarFixture`), one radar pass, every pair judged against what the case expects. Louder than
 * expected is a false alarm (quiet expected and anything reported, or soft reported hot); quieter
 * is a miss.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConflictLevel } from '../../api/conflicts.js';
import type { SessionWithProject } from '../../store/sessions.js';
import { ConflictRadar } from '../radar.js';
import { RadarFixture } from '../testing.js';
import { RADAR_CASES, type RadarCase } from './cases.js';

export { RADAR_CASES, lines, type RadarCase, type RadarStep } from './cases.js';

export interface PairVerdict {
  between: string;
  expected: ConflictLevel | null;
  actual: ConflictLevel | null;
}

export interface CaseResult {
  name: string;
  why: string;
  pairs: PairVerdict[];
  falseAlarms: PairVerdict[];
  misses: PairVerdict[];
}

const loudness = (level: ConflictLevel | null): number => (level === null ? 0 : level === 'soft' ? 1 : 2);
const pairName = (x: string, y: string): string => (y === 'base' ? `${x} ↔ base` : [x, y].sort().join(' ↔ '));

export async function runRadarCase(c: RadarCase): Promise<CaseResult> {
  const f = new RadarFixture(c.files);
  try {
    const sessions = new Map<string, SessionWithProject>();
    const of = (name: string): SessionWithProject => {
      const s = sessions.get(name);
      if (s === undefined) throw new Error(`corpus case "${c.name}": no session ${name} started`);
      return s;
    };
    const commitAll = (s: SessionWithProject, message: string): void => {
      f.git(s.worktree, 'add', '--all');
      if (f.git(s.worktree, 'status', '--porcelain') !== '') f.git(s.worktree, 'commit', '-qm', message);
    };
    for (const step of c.steps) {
      if ('start' in step) sessions.set(step.start, f.session(step.start));
      else if ('write' in step) {
        const s = of(step.session);
        if (step.text === null) rmSync(join(s.worktree, step.write));
        else f.write(s, step.write, step.text);
        if (step.commit === true) commitAll(s, `${s.name}: ${step.write}`);
      } else if ('rename' in step) {
        const s = of(step.session);
        f.git(s.worktree, 'mv', step.rename[0], step.rename[1]);
        if (step.commit === true) commitAll(s, `${s.name}: rename`);
      } else if ('land' in step) {
        const s = of(step.land);
        commitAll(s, `${s.name}: the rest`);
        f.git(f.repo, 'merge', '--no-ff', '-q', '-m', `land ${s.name}`, s.branch);
        if (step.keep !== true) {
          f.remove(s);
          sessions.delete(step.land);
        }
      } else if ('onBase' in step) {
        for (const [path, text] of Object.entries(step.onBase)) writeFileSync(join(f.repo, path), text);
        f.git(f.repo, 'commit', '-qam', 'straight to the base');
      } else if ('catchUp' in step) {
        const s = of(step.catchUp);
        f.git(s.worktree, 'merge', '-q', '--no-edit', 'main');
      }
    }
    const radar = new ConflictRadar({ sessions: f, bus: f.bus });
    await radar.pass();
    const actual = new Map<string, ConflictLevel>();
    for (const conflict of radar.view().conflicts)
      actual.set(
        pairName(conflict.a.name, conflict.b.kind === 'session' ? conflict.b.name : 'base'),
        conflict.level,
      );
    const expected = new Map(c.expect.map((e) => [pairName(e.between[0], e.between[1]), e.level]));
    const names = [...sessions.keys()].sort();
    const all = new Set<string>([...expected.keys(), ...actual.keys()]);
    names.forEach((x, i) => {
      all.add(pairName(x, 'base'));
      for (const y of names.slice(i + 1)) all.add(pairName(x, y));
    });
    const pairs = [...all].sort().map((between) => ({
      between,
      expected: expected.get(between) ?? null,
      actual: actual.get(between) ?? null,
    }));
    return {
      name: c.name,
      why: c.why,
      pairs,
      falseAlarms: pairs.filter((p) => loudness(p.actual) > loudness(p.expected)),
      misses: pairs.filter((p) => loudness(p.actual) < loudness(p.expected)),
    };
  } finally {
    f.cleanup();
  }
}

/** The whole corpus, case by case, with totals: pairs judged, false alarms, misses. */
export async function scoreRadarCorpus(cases: RadarCase[] = RADAR_CASES): Promise<{
  results: CaseResult[];
  pairs: number;
  expectedLoud: number;
  falseAlarms: number;
  misses: number;
}> {
  const results: CaseResult[] = [];
  for (const c of cases) results.push(await runRadarCase(c));
  const pairs = results.flatMap((r) => r.pairs);
  return {
    results,
    pairs: pairs.length,
    expectedLoud: pairs.filter((p) => p.expected !== null).length,
    falseAlarms: results.reduce((n, r) => n + r.falseAlarms.length, 0),
    misses: results.reduce((n, r) => n + r.misses.length, 0),
  };
}
