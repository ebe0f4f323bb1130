/**
 * The conflict radar: which live sessions will collide with each other, and with their moving
 * base, before anyone merges. Line ranges are in the merge base's lines, git's way: `start` is
 * the first line changed, `count` how many (0: lines inserted after line `start`).
 */
import { z } from 'zod';
import { endpoint, type Table } from './endpoint.js';

export const ConflictLevel = z.enum(['hot', 'soft']);
export type ConflictLevel = z.infer<typeof ConflictLevel>;

export const LineRange = z.object({
  start: z.number().int().nonnegative(),
  count: z.number().int().nonnegative(),
});
export type LineRange = z.infer<typeof LineRange>;

export const ConflictSessionSide = z.object({
  kind: z.literal('session'),
  sessionId: z.string(),
  name: z.string(),
  branch: z.string(),
  /**
   * The machine running it, when it is another machine's session (decision 127, "A shared workspace in
   * the supervisor"): its work as that machine last pushed it.
   */
  machine: z.string().optional(),
});
export type ConflictSessionSide = z.infer<typeof ConflictSessionSide>;
export const ConflictBaseSide = z.object({ kind: z.literal('base'), ref: z.string(), tip: z.string() });
export const ConflictSide = z.discriminatedUnion('kind', [ConflictSessionSide, ConflictBaseSide]);
export type ConflictSide = z.infer<typeof ConflictSide>;

/** One side's change to a file: its hunks and its diff of that file (with context) against the merge base. */
export const FileChangeSide = z.object({ hunks: z.array(LineRange), diff: z.string(), binary: z.boolean() });

export const ConflictFile = z.object({
  path: z.string(),
  level: ConflictLevel,
  /** Overlapping or adjacent hunks. */
  overlapping: z.boolean(),
  /**
   * `git merge-tree` could not merge this path; null when it was not asked because the hunks of
   * every shared file already overlap (the pair is hot either way, and git would refuse them).
   */
  mergeConflict: z.boolean().nullable(),
  a: FileChangeSide,
  b: FileChangeSide,
});
export type ConflictFile = z.infer<typeof ConflictFile>;

export const Conflict = z.object({
  /** Stable while the pair exists: `<idA>:<idB>` (ids sorted) or `<id>:base`. */
  key: z.string(),
  project: z.string(),
  projectRoot: z.string(),
  level: ConflictLevel,
  a: ConflictSessionSide,
  b: ConflictSide,
  mergeBase: z.string(),
  files: z.array(ConflictFile),
  /** Something the radar could not decide (a git call that timed out): the level rests on the hunks alone. */
  note: z.string().nullable(),
});
export type Conflict = z.infer<typeof Conflict>;

export const RadarPassStats = z.object({
  at: z.string(),
  ms: z.number(),
  /** Live sessions compared, and how many were snapshotted afresh this pass. */
  sessions: z.number().int(),
  snapshots: z.number().int(),
  /** Pairs (session–session and session–base) computed this pass. */
  pairsChecked: z.number().int(),
  /** Computed pairs whose changed paths were disjoint: settled without a git call. */
  pairsSkippedDisjoint: z.number().int(),
  /** Pairs whose trees had not changed: answered from the cache. */
  pairsCached: z.number().int(),
  /** Cache hits of every kind (pairs, per-session diffs, merge bases, snapshot commits). */
  cacheHits: z.number().int(),
  gitCalls: z.number().int(),
  timedOut: z.number().int(),
  /** Milliseconds per pair this pass (cached pairs included), median and 95th percentile. */
  pairMsP50: z.number(),
  pairMsP95: z.number(),
  /**
   * Other machines' sessions compared with this machine's (a shared workspace): how many had
   * pushed work, and whether this pass fetched it (only when one of them changed), in how long.
   */
  elsewhere: z.object({ sessions: z.number().int(), fetched: z.boolean(), fetchMs: z.number() }).optional(),
  /** Sessions that could not be snapshotted, with why. */
  errors: z.array(z.object({ sessionId: z.string(), name: z.string(), message: z.string() })),
});
export type RadarPassStats = z.infer<typeof RadarPassStats>;

export const ConflictsView = z.object({
  /** Hot first, then soft; pairs between sessions before sessions against their base. */
  conflicts: z.array(Conflict),
  /** The pass these come from; null before the first. */
  pass: RadarPassStats.nullable(),
});
export type ConflictsView = z.infer<typeof ConflictsView>;

/** What a session's card shows: its worst level and whom it collides with. */
export const ConflictBadge = z.object({
  level: ConflictLevel,
  with: z.array(z.object({ name: z.string(), level: ConflictLevel, base: z.boolean() })),
});
export type ConflictBadge = z.infer<typeof ConflictBadge>;
export const ConflictBadges = z.object({ badges: z.record(z.string(), ConflictBadge) });

export const ConflictsQuery = z.object({
  project: z.string().optional().describe('Project root or name'),
  session: z.string().optional().describe('Only conflicts of this session (id, id prefix or name)'),
});

export const CONFLICTS = {
  'GET /api/conflicts': endpoint({
    summary:
      'Live sessions that will collide with each other or with their moving base (from the last radar pass)',
    query: ConflictsQuery,
    response: ConflictsView,
  }),
  'GET /api/conflicts/badges': endpoint({
    summary:
      "Each colliding session's worst level and the sessions (or base) it collides with, by session id: what the board's cards show",
    response: ConflictBadges,
  }),
  'POST /api/conflicts/refresh': endpoint({
    summary: 'Run a radar pass now (every live session snapshotted afresh) and answer its conflicts',
    query: ConflictsQuery,
    response: ConflictsView,
  }),
} satisfies Table;
