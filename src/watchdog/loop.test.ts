import { describe, expect, it } from 'vitest';
import { judgeCase, loadLoopCorpus, scoreLoops } from './corpus/index.js';
import { LOOP_DEFAULTS } from './loop.js';

const corpus = loadLoopCorpus();

describe('the loop rule on its corpus', () => {
  it('has cases where it must pause, must only alert, and must stay quiet', () => {
    const count = (e: string): number => corpus.filter((c) => c.expect === e).length;
    expect(count('pause')).toBeGreaterThanOrEqual(10);
    expect(count('alert')).toBeGreaterThanOrEqual(10);
    expect(count('quiet')).toBeGreaterThanOrEqual(10);
  });

  it('with its defaults, raises no false alarm and misses no loop', () => {
    const score = scoreLoops(corpus);
    expect(score.wrong).toEqual([]);
    expect(score).toMatchObject({ falseAlerts: 0, falsePauses: 0, missedAlerts: 0, missedPauses: 0 });
  });

  it('only alerts on `ls missing-dir` three times: it changes nothing and spends little', () => {
    const c = corpus.find((x) => x.name === 'the same missing directory listed three times');
    expect(c).toBeDefined();
    if (c !== undefined) expect(judgeCase(c)).toBe('alert');
  });

  it('would pause harmless loops if every loop paused at three, as the rule did before', () => {
    const score = scoreLoops(corpus, { ...LOOP_DEFAULTS, action: 'pause' });
    expect(score.falsePauses).toBeGreaterThanOrEqual(10);
  });
});
