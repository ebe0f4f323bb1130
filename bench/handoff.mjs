// Handoff retention benchmark (`node bench/run.mjs handoff`, after a build): the handoff pack of
// each scripted session of the retention corpus (src/context/corpus/), for each of its next
// tasks, Claude→Codex and Codex→Claude, at 1× and 5× noise — facts kept of those the task needs,
// replaced decisions shown as current, and the pack's size as a share of its transcript. The same
// figures are asserted by src/context/corpus/retention.test.ts.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

export async function run({ log }) {
  const { buildHandoffPack } = await import(join(ROOT, 'dist/context/pack.js'));
  const corpus = await import(join(ROOT, 'dist/context/corpus/index.js'));
  const started = performance.now();
  const scores = corpus.scoreCorpus(({ transcript, task, toAgent, relevant }) =>
    buildHandoffPack({ transcript, task, toAgent, relevant }),
  );
  const ms = performance.now() - started;
  log('\n## Handoff packs against the retention corpus (default budget)');
  log(corpus.formatSummary(corpus.summarize(scores)));
  for (const s of scores)
    if (s.missing.length > 0 || s.supersededAsCurrent.length > 0 || s.currentAsReplaced?.length > 0)
      log(
        `  ${s.session} ${s.noise}× "${s.task}": missing ${s.missing.join(', ') || '-'}; replaced shown as current ${s.supersededAsCurrent.join(', ') || '-'}; current shown as replaced ${s.currentAsReplaced?.join(', ') || '-'}`,
      );
  log(`  (${scores.length} packs built and scored in ${ms.toFixed(0)} ms)`);
}
