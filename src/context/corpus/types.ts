/** The retention corpus's shape: scripted sessions with planted facts, noise, and next tasks that each need some of them. */

/** One step of a scripted session, as the agent would have produced it. */
export type Beat =
  | { say: string }
  | { think: string }
  | { user: string }
  | { ask: string; answer?: string }
  | { run: string; output: string; ok?: boolean }
  | { edit: string; content: string; tool?: string }
  | { read: string; content: string }
  | { decide: { title: string; text: string } }
  /** Noise: repeated test output, file reads and chatter, scaled by the noise factor. */
  | { noise: NoiseKind };

export type NoiseKind = 'tests' | 'failing-tests' | 'reads' | 'chatter' | 'grep';

/** A fact the transcript holds: kept when every needle is in the pack (case-insensitive). */
export interface PlantedFact {
  id: string;
  kind: 'limit' | 'constraint' | 'tried' | 'ruled-out' | 'question' | 'decision' | 'file';
  needles: string[];
}

/** A decision later replaced or reverted: any pack line naming it must say so. */
export interface SupersededFact {
  id: string;
  needle: string;
}

export interface CorpusSession {
  name: string;
  agent: 'claude' | 'codex';
  prompt: string;
  /** Words the noise is about (test names, file names), so it matches the next tasks as real noise does. */
  topic: string[];
  beats: Beat[];
  facts: PlantedFact[];
  superseded: SupersededFact[];
  tasks: { task: string; needs: string[] }[];
}
