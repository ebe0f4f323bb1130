/**
 * Scores handoff packs against the retention corpus: for each session, noise level and next
 * task, the facts the task needs that the pack kept, the replaced decisions it shows as current,
 * and its size as a share of the transcript. The relevance the service would give (its search
 * over the session, the task's words ORed) comes from a real search index in a scratch database.
 */
import { openDb } from '../../store/db.js';
import { keywords } from '../pack-parts.js';
import { SearchIndex } from '../search-index.js';
import type { Transcript } from '../transcript.js';
import { corpusTranscript, sessionEvents } from './build.js';
import { RETENTION_CORPUS } from './sessions.js';
import type { CorpusSession } from './types.js';

export interface PackLike {
  text: string;
  tokens: number;
  sourceTokens: number;
}

export type PackMaker = (input: {
  transcript: Transcript;
  task: string;
  toAgent: string;
  relevant: number[];
}) => PackLike;

export interface TaskScore {
  session: string;
  direction: string;
  noise: number;
  task: string;
  needed: number;
  kept: number;
  missing: string[];
  /** Replaced decisions the pack shows without saying they were replaced (misses). */
  supersededAsCurrent: string[];
  /** Decisions that still hold, shown as replaced (false alarms). */
  currentAsReplaced: string[];
  packTokens: number;
  sourceTokens: number;
}

/** Lines naming a replaced decision must say it no longer holds. */
const MARKED = /supersed|replac|revert|no longer|overturned|dropped/i;

/** The part of a "replaced" line that names the decision replaced, before what replaced it. */
const REPLACED_LINE = /^- (?:SUPERSEDED|REVERTED): (.*?) — (?:superseded|reverted) by /;

export function scorePack(
  session: CorpusSession,
  needs: readonly string[],
  text: string,
): {
  missing: string[];
  supersededAsCurrent: string[];
  currentAsReplaced: string[];
} {
  const lower = text.toLowerCase();
  const missing = needs.filter((id) => {
    const fact = session.facts.find((f) => f.id === id);
    if (fact === undefined) throw new Error(`corpus: ${session.name} has no fact ${id}`);
    return !fact.needles.every((n) => lower.includes(n.toLowerCase()));
  });
  const lines = text.split('\n');
  const supersededAsCurrent = session.superseded
    .filter((s) => lines.some((l) => l.toLowerCase().includes(s.needle.toLowerCase()) && !MARKED.test(l)))
    .map((s) => s.id);
  const replacedParts = lines.flatMap((l) => REPLACED_LINE.exec(l)?.[1]?.toLowerCase() ?? []);
  const currentAsReplaced = session.facts
    .filter((f) => f.kind === 'decision')
    .filter((f) => replacedParts.some((part) => f.needles.every((n) => part.includes(n.toLowerCase()))))
    .map((f) => f.id);
  return { missing, supersededAsCurrent, currentAsReplaced };
}

const TO: Record<string, string> = { claude: 'codex', codex: 'claude' };

export function scoreCorpus(make: PackMaker, noises: readonly number[] = [1, 5]): TaskScore[] {
  const scores: TaskScore[] = [];
  const db = openDb(':memory:');
  try {
    const search = new SearchIndex(db);
    for (const noise of noises)
      for (const session of RETENTION_CORPUS) {
        const sessionId = `corpus-${session.name}-${noise}`;
        db.transaction(() => {
          for (const event of sessionEvents(session, noise))
            search.indexEvent({ sessionId, projectId: null, agent: session.agent }, event);
        })();
        const transcript = corpusTranscript(session, noise);
        const toAgent = TO[session.agent]!;
        for (const { task, needs } of session.tasks) {
          const words = keywords(task);
          const relevant = search
            .search(words.join(' OR '), { sessionId, limit: 30 })
            .flatMap((h) => (h.seq === null ? [] : [h.seq]));
          const pack = make({ transcript, task, toAgent, relevant });
          const { missing, supersededAsCurrent, currentAsReplaced } = scorePack(session, needs, pack.text);
          scores.push({
            session: session.name,
            direction: `${session.agent}→${toAgent}`,
            noise,
            task,
            needed: needs.length,
            kept: needs.length - missing.length,
            missing,
            supersededAsCurrent,
            currentAsReplaced,
            packTokens: pack.tokens,
            sourceTokens: pack.sourceTokens,
          });
        }
      }
  } finally {
    db.close();
  }
  return scores;
}

export interface CorpusSummary {
  direction: string;
  noise: number;
  packs: number;
  kept: number;
  needed: number;
  supersededAsCurrent: number;
  currentAsReplaced: number;
  /** Pack size as a share of its transcript: the largest, and over all packs. */
  maxShare: number;
  meanShare: number;
  sourceKb: number;
}

export function summarize(scores: readonly TaskScore[]): CorpusSummary[] {
  const groups = new Map<string, TaskScore[]>();
  for (const s of scores) {
    const key = `${s.direction} ${s.noise}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups.values()].map((g) => {
    const shares = g.map((s) => s.packTokens / s.sourceTokens);
    return {
      direction: g[0]!.direction,
      noise: g[0]!.noise,
      packs: g.length,
      kept: g.reduce((n, s) => n + s.kept, 0),
      needed: g.reduce((n, s) => n + s.needed, 0),
      supersededAsCurrent: g.reduce((n, s) => n + s.supersededAsCurrent.length, 0),
      currentAsReplaced: g.reduce((n, s) => n + s.currentAsReplaced.length, 0),
      maxShare: Math.max(...shares),
      meanShare: shares.reduce((a, b) => a + b, 0) / shares.length,
      sourceKb: Math.round(
        ([...new Set(g.map((s) => s.sourceTokens))].reduce((a, b) => a + b, 0) * 4) / 1024,
      ),
    };
  });
}

export function formatSummary(rows: readonly CorpusSummary[]): string {
  const out = [
    'direction      noise  packs  facts kept/needed  replaced shown as current (misses)  current shown as replaced (false alarms)  pack % of source (max / mean)  source KB',
  ];
  for (const r of rows)
    out.push(
      `${r.direction.padEnd(14)} ${`${r.noise}×`.padEnd(6)} ${String(r.packs).padEnd(6)} ${`${r.kept}/${r.needed}`.padEnd(18)} ${String(r.supersededAsCurrent).padEnd(34)} ${String(r.currentAsReplaced).padEnd(41)} ${`${(100 * r.maxShare).toFixed(1)}% / ${(100 * r.meanShare).toFixed(1)}%`.padEnd(30)} ${r.sourceKb}`,
    );
  return out.join('\n');
}
