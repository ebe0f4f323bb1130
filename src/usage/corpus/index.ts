/**
 * The corpus for admission by subscription window (decision 300, window-holds.json, described at
 * its top) and its score: each case's reports fed through the real windows (windows.ts) and the
 * real rule (hold.ts). A false alarm is a dispatch held whose window did not run out; a miss is one
 * let through whose window did.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { windowHold } from '../hold.js';
import { AgentWindows } from '../windows.js';

export interface WindowCase {
  name: string;
  agent: string;
  /** The new dispatch's agent; the reporting agent's when absent. */
  dispatch?: string;
  window: string;
  /** [minutes before the dispatch, used percent]. */
  reports: [number, number][];
  resetsInMin: number;
  atWork: number;
  /** What the window reached by its reset: 100 or more means it ran out. */
  reached: number;
}

export interface WindowScore {
  cases: number;
  mustHold: number;
  falseAlarms: number;
  misses: number;
  wrong: { name: string; expected: 'hold' | 'start'; reason: string | undefined }[];
}

/** The corpus sits beside the sources; the build leaves it there, so read from src/. */
function corpusFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return join(here.replace(/([\\/])dist([\\/]usage[\\/]corpus)$/, '$1src$2'), 'window-holds.json');
}

export function loadWindowCorpus(): WindowCase[] {
  return (JSON.parse(readFileSync(corpusFile(), 'utf8')) as { cases: WindowCase[] }).cases;
}

/** The rule's verdict on one case: the hold's reason, or undefined when it lets the dispatch start. */
export function judgeWindowCase(c: WindowCase, holdAtPercent?: number): string | undefined {
  const now = Date.parse('2026-06-01T12:00:00Z');
  const windows = new AgentWindows();
  const resetsAt = new Date(now + c.resetsInMin * 60_000).toISOString();
  for (const [minutes, used] of c.reports)
    windows.add(c.agent, [{ name: c.window, usedPercent: used, resetsAt }], now + minutes * 60_000);
  return windowHold({
    agent: c.dispatch ?? c.agent,
    windows: windows.list(now),
    atWork: c.atWork,
    now,
    ...(holdAtPercent === undefined ? {} : { holdAtPercent }),
  });
}

export function scoreWindowHolds(corpus: readonly WindowCase[], holdAtPercent?: number): WindowScore {
  const score: WindowScore = { cases: corpus.length, mustHold: 0, falseAlarms: 0, misses: 0, wrong: [] };
  for (const c of corpus) {
    const mustHold = c.reached >= 100 && (c.dispatch ?? c.agent) === c.agent && c.resetsInMin > 0;
    if (mustHold) score.mustHold++;
    const reason = judgeWindowCase(c, holdAtPercent);
    if (mustHold && reason === undefined) score.misses++;
    if (!mustHold && reason !== undefined) score.falseAlarms++;
    if (mustHold !== (reason !== undefined))
      score.wrong.push({ name: c.name, expected: mustHold ? 'hold' : 'start', reason });
  }
  return score;
}
