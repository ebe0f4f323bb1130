// Admission by subscription window (decision 300) on its corpus (src/usage/corpus/window-holds.json),
// part of `node bench/run.mjs windows` (after a build): false alarms (a dispatch held whose window
// did not run out) and misses (one let through whose window did) at the default threshold and at
// the thresholds around it, which is how the default was chosen. Runs in milliseconds, no supervisor.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

export async function run({ log }) {
  const { loadWindowCorpus, scoreWindowHolds } = await import(join(ROOT, 'dist/usage/corpus/index.js'));
  const { DEFAULT_HOLD_AT_PERCENT } = await import(join(ROOT, 'dist/usage/hold.js'));
  const corpus = loadWindowCorpus();
  const score = scoreWindowHolds(corpus);
  log(
    `windows: hold corpus ${score.cases} cases (${score.mustHold} must hold, ${score.cases - score.mustHold} must start)`,
  );
  log(
    `windows:   default (hold at ${DEFAULT_HOLD_AT_PERCENT}% projected by the reset): ${score.falseAlarms} false alarms, ${score.misses} misses`,
  );
  for (const w of score.wrong) log(`windows:     ${w.name}: expected ${w.expected}`);
  const cells = [75, 80, 90, 100, 110, 120].map((at) => {
    const s = scoreWindowHolds(corpus, at);
    return `${at}%: ${s.falseAlarms}/${s.misses}`;
  });
  log(`windows:   threshold (false alarms/misses) ${cells.join(', ')}`);
  return score;
}
