/**
 * Keep-fresh's judgment scored over its corpus (decision 307): a session is rebased only while
 * its agent rests between turns. Both ways: every case that must fire fires, every case that must
 * stay quiet stays quiet. `node bench/fresh.mjs` reports the same score.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionWithProject } from '../store/sessions.js';
import { isResting } from './service.js';

interface Case {
  why: string;
  state: string;
  reason: unknown;
  rebase: boolean;
}

const corpus = (
  JSON.parse(readFileSync(join(import.meta.dirname, 'corpus', 'resting.json'), 'utf8')) as { cases: Case[] }
).cases;

describe('keep-fresh resting corpus', () => {
  it('fires on every resting session and stays quiet on every other', () => {
    const judged = corpus.map((c) => ({
      ...c,
      said: isResting({
        state: c.state,
        state_reason_json: c.reason === null ? null : JSON.stringify(c.reason),
      } as unknown as SessionWithProject),
    }));
    const misses = judged.filter((c) => c.rebase && !c.said).map((c) => c.why);
    const falseAlarms = judged.filter((c) => !c.rebase && c.said).map((c) => c.why);
    expect({ misses, falseAlarms }).toEqual({ misses: [], falseAlarms: [] });
    expect(judged.filter((c) => c.rebase).length).toBeGreaterThanOrEqual(4);
    expect(judged.filter((c) => !c.rebase).length).toBeGreaterThanOrEqual(8);
  });
});
