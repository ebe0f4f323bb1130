import { describe, expect, it } from 'vitest';
import { loadCorpus, CORPUS_CONTEXT } from './corpus/index.js';
import { compilePolicy, evaluate } from './index.js';

describe('the gate over its corpus', () => {
  const corpus = loadCorpus();
  const policy = compilePolicy();

  it('has at least 300 cases, of every verdict', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    for (const verdict of ['block', 'ask', 'allow'] as const)
      expect(corpus.filter((c) => c.expect === verdict).length).toBeGreaterThan(50);
  });

  it('has at least 500 cases of the safety boundary (decisions 157-159), of every verdict', () => {
    const boundary = corpus.filter((c) => c.where.includes('-safety'));
    expect(boundary.length).toBeGreaterThanOrEqual(500);
    for (const verdict of ['block', 'ask', 'allow'] as const)
      expect(boundary.filter((c) => c.expect === verdict).length).toBeGreaterThan(80);
  });

  it('misses nothing and blocks nothing it should allow (each case its expected verdict)', () => {
    const wrong = corpus.flatMap((c) => {
      const verdict = evaluate(c.call, CORPUS_CONTEXT, policy);
      return verdict.action === c.expect
        ? []
        : [
            `${c.where}  expected ${c.expect}, got ${verdict.action} (${verdict.rule ?? 'no rule'}: ${verdict.why ?? ''})  ${c.text}  ⟶ ${verdict.parsed.join(' ; ')}`,
          ];
    });
    const misses = wrong.filter((w) => / got allow /.test(w));
    const falseBlocks = wrong.filter((w) => /expected allow/.test(w));
    console.log(
      `corpus: ${corpus.length} cases, ${misses.length} missed, ${falseBlocks.length} falsely blocked or asked, ${wrong.length - misses.length - falseBlocks.length} with the other strength`,
    );
    expect(wrong).toEqual([]);
  });
});
