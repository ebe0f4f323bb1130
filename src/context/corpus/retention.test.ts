/**
 * The handoff pack against the retention corpus: every fact each next task needs kept, no
 * replaced decision shown as current, and the pack within a tenth of its transcript — Claude to
 * Codex and Codex to Claude, at 1× and 5× noise. `npm run bench` prints the same figures.
 */
import { describe, expect, it } from 'vitest';
import { buildHandoffPack } from '../pack.js';
import { formatSummary, scoreCorpus, summarize } from './index.js';

describe('the retention corpus', () => {
  it('keeps every needed fact, shows no replaced decision as current, in at most 10% of the source', () => {
    const scores = scoreCorpus(({ transcript, task, toAgent, relevant }) =>
      buildHandoffPack({ transcript, task, toAgent, relevant }),
    );
    const summary = summarize(scores);
    console.log(formatSummary(summary));
    for (const s of scores) {
      expect(s.missing, `${s.session} ${s.noise}×: ${s.task}`).toEqual([]);
      expect(s.supersededAsCurrent, `${s.session} ${s.noise}×: ${s.task}`).toEqual([]);
      expect(s.currentAsReplaced, `${s.session} ${s.noise}×: ${s.task}`).toEqual([]);
    }
    for (const row of summary)
      expect(row.maxShare, `${row.direction} ${row.noise}×`).toBeLessThanOrEqual(0.1);
    expect(summary.map((r) => r.direction).sort()).toEqual([
      'claude→codex',
      'claude→codex',
      'codex→claude',
      'codex→claude',
    ]);
  });
});
