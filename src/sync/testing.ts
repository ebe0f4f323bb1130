/** Test support for sync: provenance notes as Baton writes them. */
import type { ProvenanceNote } from '../provenance/index.js';

/** A one-line note as Baton writes it: `name` wrote line 1 of `file`. */
export const note = (name: string, file: string): ProvenanceNote => ({
  baton: 1,
  turns: [
    {
      v: 1,
      sessionId: `id-${name}`,
      name,
      turn: 1,
      agent: 'scripted',
      model: null,
      task: null,
      prompt: `${name}: work`,
      reply: null,
      outcome: 'success',
      startSeq: 1,
      endSeq: 5,
      tools: [],
      decisions: [],
      handoffFrom: null,
      at: '2026-01-01T00:00:00.000Z',
    },
  ],
  files: { [file]: [[1, 1, 0]] },
});
