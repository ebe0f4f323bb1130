// The loop rule's judgment on its corpus (src/watchdog/corpus/loops.txt), part of
// `node bench/run.mjs watchdog` (after a build): false alarms and misses of the defaults, of the
// rule as it was before decision 151 (every repeat of the same call, or of the same failing
// command, paused at 3: the raw baseline), and of the thresholds around the defaults, which is
// how they were chosen. Runs in a few seconds with no supervisor.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

export async function loopCorpus(log) {
  const { loadLoopCorpus, scoreLoops } = await import(join(ROOT, 'dist/watchdog/corpus/index.js'));
  const { LOOP_DEFAULTS } = await import(join(ROOT, 'dist/watchdog/loop.js'));
  const corpus = loadLoopCorpus();
  const by = (e) => corpus.filter((c) => c.expect === e).length;
  const line = (label, s) =>
    `${label}: ${s.falseAlerts + s.falsePauses} false alarms (${s.falseAlerts} alerts where nothing was due, ${s.falsePauses} needless pauses), ${s.missedAlerts + s.missedPauses} misses (${s.missedAlerts} loops unreported, ${s.missedPauses} not paused)`;
  log(
    `watchdog: loop corpus ${corpus.length} cases (${by('pause')} must pause, ${by('alert')} must only alert, ${by('quiet')} must stay quiet)`,
  );
  const started = performance.now();
  const defaults = scoreLoops(corpus);
  const ms = performance.now() - started;
  log(
    `watchdog:   ${line(`defaults (report at ${LOOP_DEFAULTS.repeats}, pause on side effects, at $${LOOP_DEFAULTS.pauseUsd} or at ${LOOP_DEFAULTS.pauseAfter} repeats)`, defaults)}; ${ms.toFixed(0)} ms for the corpus`,
  );
  for (const w of defaults.wrong)
    log(`watchdog:     ${w.where} ${w.name}: expected ${w.expected}, got ${w.got}`);
  log(
    `watchdog:   ${line('before decision 151 (same call or failing command ×3 pauses)', scoreBefore(corpus))}`,
  );
  // Each threshold moved alone, the others at their defaults.
  const sweep = [
    ['repeats', [2, 3, 4, 5]],
    ['pauseAfter', [5, 8, 10, 15, 25]],
    ['pauseUsd', [0.25, 0.5, 1, 2]],
  ];
  for (const [name, values] of sweep) {
    const cells = values.map((value) => {
      const s = scoreLoops(corpus, { [name]: value });
      return `${value}: ${s.falseAlerts + s.falsePauses}/${s.missedAlerts + s.missedPauses}`;
    });
    log(`watchdog:   ${name} (false alarms/misses) ${cells.join(', ')}`);
  }
}

/** The rule before decision 151, as it read: the same tool and input started 3 times in a row, or the same command failing 3 times with no file changed, paused. */
function scoreBefore(corpus) {
  const s = { falseAlerts: 0, falsePauses: 0, missedAlerts: 0, missedPauses: 0 };
  for (const c of corpus) {
    let last;
    let same = 0;
    const failures = new Map();
    const calls = new Map();
    let paused = false;
    for (const e of c.events) {
      if (e.type === 'tool.started') {
        const call = `${e.tool} ${e.input}`;
        same = call === last ? same + 1 : 1;
        last = call;
        calls.set(e.toolId, e);
        if (same === 3) paused = true;
      } else if (e.type === 'tool.finished') {
        const call = calls.get(e.toolId);
        if (e.ok && (e.files ?? []).length > 0) failures.clear();
        if (!e.ok && call?.kind === 'run') {
          const n = (failures.get(call.input) ?? 0) + 1;
          failures.set(call.input, n);
          if (n === 3) paused = true;
        }
      }
    }
    const got = paused ? 'pause' : 'quiet';
    if (got === c.expect) continue;
    if (got === 'pause') s.falsePauses++;
    else if (c.expect === 'alert') s.missedAlerts++;
    else s.missedPauses++;
  }
  return s;
}
