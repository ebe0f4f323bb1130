import { describe, expect, it } from 'vitest';
import { DISCARD_CONTEXT, loadDiscardCorpus } from './corpus/discards/index.js';
import { corpusDisk } from './corpus/index.js';
import { discardsWork } from './discards.js';

describe('the discard classifier over its corpus', () => {
  const corpus = loadDiscardCorpus();

  it('has cases both ways', () => {
    expect(corpus.filter((c) => c.checkpoint).length).toBeGreaterThanOrEqual(80);
    expect(corpus.filter((c) => !c.checkpoint).length).toBeGreaterThanOrEqual(80);
  });

  it('takes a checkpoint before every discarding line and before none of the others', () => {
    const wrong = corpus.flatMap((c) => {
      const found = discardsWork(c.command, DISCARD_CONTEXT.worktree, DISCARD_CONTEXT.home, corpusDisk());
      return (found !== undefined) === c.checkpoint
        ? []
        : [
            `${c.where}  expected ${c.checkpoint ? 'a checkpoint' : 'none'}: ${c.command}  ⟶ ${found?.why ?? 'none'}`,
          ];
    });
    const misses = wrong.filter((w) => /expected a checkpoint/.test(w)).length;
    console.log(
      `discard corpus: ${corpus.length} cases, ${misses} missed, ${wrong.length - misses} false checkpoints`,
    );
    expect(wrong).toEqual([]);
  });

  it('names the command as read and what it throws away', () => {
    expect(discardsWork('cd src && bash -c "git clean -fdx"', '/w', '/h')).toEqual({
      command: 'git clean -fdx',
      why: expect.stringMatching(/untracked files/),
    });
  });
});
