/**
 * Provenance: which session's turn wrote each line of a file (`baton blame`), and that turn's place
 * in its transcript with the decisions it cited (`baton why`). Read from git (blame and the notes
 * under `refs/notes/baton`) in the caller's checkout; operations are in `src/provenance`.
 */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';

export const TurnRecordView = z.object({
  v: z.literal(1),
  sessionId: z.string(),
  name: z.string(),
  turn: z.number().int(),
  agent: z.string(),
  model: z.string().nullable(),
  task: z.number().int().nullable(),
  /** The prompt (first turn) or the reply the turn answered, up to 2,000 characters. */
  prompt: z.string(),
  reply: z.string().nullable(),
  outcome: z.enum(['success', 'error', 'interrupted']),
  startSeq: z.number().int(),
  endSeq: z.number().int(),
  tools: z.array(z.object({ tool: z.string(), files: z.array(z.string()) })),
  decisions: z.array(z.string()),
  checks: z.array(z.string()).optional(),
  handoffFrom: z.string().nullable(),
  at: z.string(),
});
export type TurnRecordView = z.infer<typeof TurnRecordView>;

export const BlameLineView = z.object({
  line: z.number().int(),
  text: z.string(),
  commit: z.string(),
  path: z.string(),
  author: z.string(),
  authorMail: z.string(),
  at: z.string(),
  summary: z.string(),
  /** The turn that wrote the line; null when no session of Baton's did (a person's line, or one from before Baton). */
  turn: TurnRecordView.nullable(),
});
export type BlameLineView = z.infer<typeof BlameLineView>;

export const BlameView = z.object({ path: z.string(), lines: z.array(BlameLineView) });
export type BlameView = z.infer<typeof BlameView>;

export const WhyView = z.object({
  path: z.string(),
  line: BlameLineView,
  /** Where the turn is in its session's transcript; null for a line no session wrote. */
  transcript: z
    .object({
      sessionId: z.string(),
      name: z.string(),
      /** False when this workspace no longer holds the session (the note alone tells of it). */
      kept: z.boolean(),
      command: z.string(),
      startSeq: z.number().int(),
      endSeq: z.number().int(),
      /** The turn's messages and tool calls, one line each (its last 40). */
      entries: z.array(z.object({ seq: z.number().int(), text: z.string() })),
    })
    .nullable(),
});
export type WhyView = z.infer<typeof WhyView>;

export const BlameQuery = z.object({
  file: z
    .string()
    .min(1)
    .max(4096)
    .describe(
      "A path relative to the caller's folder, optionally with a line or range: file, file:12, file:12-20",
    ),
});

export const EvidenceView = z.object({
  sessionId: z.string(),
  name: z.string(),
  turn: z.number().int(),
  /** The tree of the work the check ran on. */
  tree: z.string(),
  command: z.string(),
  outcome: z.enum(['passed', 'failed', 'timed_out']),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  outputTail: z.string(),
  /** What the runner's summary counted; null when its output has none Baton reads. */
  tests: z.object({ ran: z.number().int(), passed: z.number().int(), failed: z.number().int() }).nullable(),
  at: z.string(),
  /** Ignored files the worktree held beside the tree when the check ran (the first few); a merge does not reuse such a pass. */
  outsideTree: z.array(z.string()).optional(),
});
export type EvidenceView = z.infer<typeof EvidenceView>;

export const RedGreenTestView = z.object({
  file: z.string(),
  /** How the test did on the base with only the session's test files laid on it. */
  base: z.enum(['passed', 'failed', 'timed_out']),
  /** How it did on the session's work. */
  branch: z.enum(['passed', 'failed', 'timed_out']),
  /** Fails on the base, passes with the change: it exercises the change. */
  proves: z.boolean(),
  /** Passes on the base already: "regression test passes without the change". */
  vacuous: z.boolean(),
  baseTail: z.string(),
});

/** The session's new or changed tests run against its base and its own work (decision 292). */
export const RedGreenView = z.object({
  sessionId: z.string(),
  name: z.string(),
  turn: z.number().int(),
  tree: z.string(),
  base: z.string(),
  command: z.string(),
  tests: z.array(RedGreenTestView),
  skipped: z.number().int(),
  durationMs: z.number().int(),
  at: z.string(),
});
export type RedGreenView = z.infer<typeof RedGreenView>;

/** A session's evidence in one glance, on its view in `ls`, the board and the page (decision 290). */
export const EvidenceMark = z.object({
  status: z.enum(['verified', 'failing', 'claimed', 'none']),
  /** The check Baton ran, or the commands the agent ran (claimed). */
  command: z.string().nullable(),
  tests: z.object({ ran: z.number().int(), passed: z.number().int(), failed: z.number().int() }).nullable(),
  /** The tree the check ran on. */
  tree: z.string().nullable(),
  /** New tests that already pass on the base: they do not exercise the change. */
  vacuous: z.array(z.string()),
  /** New tests that fail on the base and pass with the change. */
  proving: z.array(z.string()),
});
export type EvidenceMark = z.infer<typeof EvidenceMark>;

export const SessionEvidenceView = z.object({
  sessionId: z.string(),
  name: z.string(),
  /**
   * `verified`: Baton's own run of the check passed on the session's work as it is; `failing`: it
   * failed; `claimed`: Baton did not verify this work, but the agent ran `claimed` itself; `none`.
   */
  status: z.enum(['verified', 'failing', 'claimed', 'none']),
  evidence: EvidenceView.nullable(),
  claimed: z.array(z.string()),
  /** The red→green run of its new tests on its latest work; null when none ran on it. */
  redGreen: RedGreenView.nullable(),
});
export type SessionEvidenceView = z.infer<typeof SessionEvidenceView>;

/**
 * Which turn of a session last wrote each line of one file of its work, from its turn chain
 * (decision 295): the page's diff and review views fetch it once per file shown.
 */
export const SessionBlameView = z.object({
  sessionId: z.string(),
  name: z.string(),
  path: z.string(),
  /** The turns that wrote lines of the file, each once. */
  turns: z.array(TurnRecordView),
  /** For each line of the file in the session's work (index 0 is line 1): its turn's index in `turns`, or -1 (no turn wrote it: the base's line, or one written after the last recorded turn). */
  lines: z.array(z.number().int()),
});
export type SessionBlameView = z.infer<typeof SessionBlameView>;

export const SessionBlameQuery = z.object({
  file: z
    .string()
    .min(1)
    .max(4096)
    .describe("A path in the session's work, relative to its repository's root"),
});

export const EvidenceQuery = z.object({
  session: z.string().optional().describe('One session (id, id prefix or name)'),
});

export const PROVENANCE = {
  'GET /api/provenance/blame': endpoint({
    summary:
      "Each line of a file with the session, turn, prompt, agent and model that wrote it, or git's author",
    query: BlameQuery,
    response: BlameView,
  }),
  'GET /api/provenance/why': endpoint({
    summary: "The turn that wrote one line: its place in the session's transcript and the decisions it cited",
    query: BlameQuery,
    response: WhyView,
  }),
  'GET /api/provenance/sessions/:ref/blame': endpoint({
    summary:
      'Which turn of a session (its prompt, agent and model) last wrote each line of one file of its work, from its turn chain',
    query: SessionBlameQuery,
    response: SessionBlameView,
  }),
  'GET /api/provenance/evidence': endpoint({
    summary: "Each session's evidence: verified, failing or claimed, with the check Baton ran on its tree",
    query: EvidenceQuery,
    response: z.object({ sessions: z.array(SessionEvidenceView) }),
    sessions: 'read',
  }),
} satisfies Table;
