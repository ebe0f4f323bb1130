/** Provenance (src/provenance): which session's turn wrote each line, recorded at turn ends and noted on landed commits. */
import { z } from 'zod';
import { defineWorkspaceEvent, sessionRef } from './define.js';

/** A turn's work was committed onto the session's provenance chain (`refs/baton/provenance/<session id>`). */
export const ProvenanceRecorded = defineWorkspaceEvent(
  'provenance.recorded',
  z.object({
    ...sessionRef,
    turn: z.number().int().positive(),
    /** The turn commit; null when the turn changed no file since the last one. */
    commit: z.string().nullable(),
    /** Files the turn's tool calls named. */
    files: z.array(z.string()),
    ms: z.number().int().nonnegative(),
  }),
);

/** A landing's commits got their notes under `refs/notes/baton`. */
export const ProvenanceNoted = defineWorkspaceEvent(
  'provenance.noted',
  z.object({
    project: z.string(),
    /** The base's new tip. */
    commit: z.string(),
    sessions: z.array(z.object({ sessionId: z.string(), name: z.string() })),
    /** Commits that got a note, and the lines their notes name. */
    commits: z.number().int().nonnegative(),
    lines: z.number().int().nonnegative(),
    ms: z.number().int().nonnegative(),
  }),
);

/** Baton ran the repository's check on a session's work at a turn's end (`"verify": {"run": "turn"}`). */
export const ProvenanceVerified = defineWorkspaceEvent(
  'provenance.verified',
  z.object({
    ...sessionRef,
    turn: z.number().int().positive(),
    tree: z.string(),
    command: z.string(),
    outcome: z.enum(['passed', 'failed', 'timed_out']),
    exitCode: z.number().int().nullable(),
    durationMs: z.number().int().nonnegative(),
    outputTail: z.string(),
    tests: z.object({ ran: z.number().int(), passed: z.number().int(), failed: z.number().int() }).nullable(),
  }),
);

/**
 * A session's new or changed test files ran on its base (its tests laid on the base's tree) and on
 * its work (decision 292): `vacuous` ones passed on the base, so they do not exercise the change.
 */
export const ProvenanceRedGreen = defineWorkspaceEvent(
  'provenance.red_green',
  z.object({
    ...sessionRef,
    turn: z.number().int().positive(),
    tree: z.string(),
    tests: z.array(
      z.object({
        file: z.string(),
        base: z.enum(['passed', 'failed', 'timed_out']),
        branch: z.enum(['passed', 'failed', 'timed_out']),
        vacuous: z.boolean(),
      }),
    ),
    durationMs: z.number().int().nonnegative(),
  }),
);
