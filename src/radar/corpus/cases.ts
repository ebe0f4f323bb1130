/**
 * The radar's corpus: small repositories where a collision must be reported (hot: the same
 * lines; soft: the same file, other lines) and where the radar must stay quiet — above all after
 * work lands on the base, which must never make a session collide with lines it did not touch.
 * Every pair of live sessions, and each session against its base, not named in `expect` must
 * stay quiet. Scored by `corpus.test.ts` and reported by `npm run bench`.
 */
import type { ConflictLevel } from '../../api/conflicts.js';

/** A 40-line file whose line n reads `line n`, with some lines replaced. */
export const lines = (change: Record<number, string> = {}, n = 40): string =>
  Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

export type RadarStep =
  /** A session starts from the base branch's tip now. */
  | { start: string }
  /** A session writes a file (null: deletes it); `commit` commits all its work after. */
  | { session: string; write: string; text: string | null; commit?: boolean }
  /** A session renames a file (`git mv`). */
  | { session: string; rename: [string, string]; commit?: boolean }
  /**
   * A session's work (uncommitted included) lands on the base branch with a merge commit; the
   * session is then removed, as a landed session is, unless `keep`.
   */
  | { land: string; keep?: boolean }
  /** Someone commits straight to the base branch. */
  | { onBase: Record<string, string> }
  /** A session merges the base branch's tip into its own branch (catching up). */
  | { catchUp: string };

export interface RadarCase {
  name: string;
  /** Why the answer is the right one, for whoever reads a failure. */
  why: string;
  files: Record<string, string>;
  steps: RadarStep[];
  /** The collisions that must be reported: `[x, y]` two sessions, `[x, 'base']` a session and its base. */
  expect: { between: [string, string]; level: ConflictLevel }[];
}

const defu = { 'defu.ts': lines(), 'other.ts': lines() };

export const RADAR_CASES: RadarCase[] = [
  // ── must fire ────────────────────────────────────────────────────────────────
  {
    name: 'same line',
    why: 'two sessions rewrite line 28: whichever lands second conflicts',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'b' }) },
    ],
    expect: [{ between: ['a', 'b'], level: 'hot' }],
  },
  {
    name: 'adjacent lines, one committed',
    why: 'git refuses to merge changes to neighbouring lines; committed work counts as much as uncommitted',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 10: 'a' }), commit: true },
      { session: 'b', write: 'defu.ts', text: lines({ 11: 'b' }) },
    ],
    expect: [{ between: ['a', 'b'], level: 'hot' }],
  },
  {
    name: 'same file, other lines',
    why: 'both change defu.ts far apart: it merges, but the two should know',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 3: 'a' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 35: 'b' }) },
    ],
    expect: [{ between: ['a', 'b'], level: 'soft' }],
  },
  {
    name: 'both add the same new file',
    why: 'two different files at one new path: an add/add conflict',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'new.ts', text: 'export const a = 1;\n' },
      { session: 'b', write: 'new.ts', text: 'export const b = 2;\n' },
    ],
    expect: [{ between: ['a', 'b'], level: 'hot' }],
  },
  {
    name: 'delete against edit',
    why: 'one deletes the file the other edits',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: null },
      { session: 'b', write: 'defu.ts', text: lines({ 5: 'b' }) },
    ],
    expect: [{ between: ['a', 'b'], level: 'hot' }],
  },
  {
    name: 'landing on the lines a session edits',
    why: 'a and b both rewrite line 28; a lands: b now collides with its base (and only with it)',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'b' }) },
      { land: 'a' },
    ],
    expect: [{ between: ['b', 'base'], level: 'hot' }],
  },
  {
    name: 'landing elsewhere in a file a session edits',
    why: 'the base changed defu.ts far from b’s lines: soft against the base',
    files: defu,
    steps: [
      { start: 'b' },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'b' }) },
      { onBase: { 'defu.ts': lines({ 2: 'landed' }) } },
    ],
    expect: [{ between: ['b', 'base'], level: 'soft' }],
  },
  {
    name: 'two sessions after a landing, same line',
    why: 'c and d both start after a lands and both rewrite line 5: hot with each other',
    files: defu,
    steps: [
      { start: 'a' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }) },
      { land: 'a' },
      { start: 'c' },
      { start: 'd' },
      { session: 'c', write: 'defu.ts', text: lines({ 5: 'c', 28: 'a' }) },
      { session: 'd', write: 'defu.ts', text: lines({ 5: 'd', 28: 'a' }) },
    ],
    expect: [{ between: ['c', 'd'], level: 'hot' }],
  },
  {
    name: 'sessions on either side of a landing that moved the lines, same line',
    why: 'the landing inserted 5 lines at the top: b’s line 28 is c’s line 33, and both rewrite it',
    files: defu,
    steps: [
      { start: 'b' },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'b' }) },
      { onBase: { 'defu.ts': 'top 1\ntop 2\ntop 3\ntop 4\ntop 5\n' + lines() } },
      { start: 'c' },
      { session: 'c', write: 'defu.ts', text: 'top 1\ntop 2\ntop 3\ntop 4\ntop 5\n' + lines({ 28: 'c' }) },
    ],
    expect: [
      { between: ['b', 'c'], level: 'hot' },
      { between: ['b', 'base'], level: 'soft' },
    ],
  },
  {
    name: 'sessions on either side of a landing that moved the lines, other lines',
    why: 'the landing inserted 5 lines at the top: c rewrites b’s old line 10 (c’s line 15), b line 28',
    files: defu,
    steps: [
      { start: 'b' },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'b' }) },
      { onBase: { 'defu.ts': 'top 1\ntop 2\ntop 3\ntop 4\ntop 5\n' + lines() } },
      { start: 'c' },
      { session: 'c', write: 'defu.ts', text: 'top 1\ntop 2\ntop 3\ntop 4\ntop 5\n' + lines({ 10: 'c' }) },
    ],
    expect: [
      { between: ['b', 'c'], level: 'soft' },
      { between: ['b', 'base'], level: 'soft' },
    ],
  },
  {
    name: 'a caught-up session and a newer one, same line',
    why: 'b merged the base in after a landed; c started after: both rewrite line 5',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'other.ts', text: lines({ 1: 'a' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 5: 'b' }), commit: true },
      { land: 'a' },
      { catchUp: 'b' },
      { start: 'c' },
      { session: 'c', write: 'defu.ts', text: lines({ 5: 'c' }) },
    ],
    expect: [{ between: ['b', 'c'], level: 'hot' }],
  },

  // ── must stay quiet ──────────────────────────────────────────────────────────
  {
    name: 'a landing, then a session that edits nothing',
    why: 'a and b rewrite line 28, a lands, c starts and does nothing: the landed line is not c’s change',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'b' }) },
      { land: 'a' },
      { start: 'c' },
    ],
    expect: [{ between: ['b', 'base'], level: 'hot' }],
  },
  {
    name: 'a landing, then many sessions elsewhere',
    why: 'every session started after a landing inherits it; none of them touched line 28',
    files: { ...defu, 'x1.ts': lines(), 'x2.ts': lines(), 'x3.ts': lines(), 'x4.ts': lines() },
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'b' }) },
      { land: 'a' },
      { start: 'c1' },
      { start: 'c2' },
      { start: 'c3' },
      { start: 'c4' },
      { session: 'c1', write: 'x1.ts', text: lines({ 1: 'c1' }) },
      { session: 'c2', write: 'x2.ts', text: lines({ 1: 'c2' }) },
      { session: 'c3', write: 'x3.ts', text: lines({ 1: 'c3' }) },
      { session: 'c4', write: 'x4.ts', text: lines({ 1: 'c4' }), commit: true },
    ],
    expect: [{ between: ['b', 'base'], level: 'hot' }],
  },
  {
    name: 'a landed session still open, with nothing new',
    why: 'a landed and stays open: its landed commits are behind its fork point now, nobody’s change',
    files: defu,
    steps: [
      { start: 'a' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }), commit: true },
      { land: 'a', keep: true },
      { start: 'c' },
      { session: 'c', write: 'defu.ts', text: lines({ 28: 'c' }) },
    ],
    expect: [],
  },
  {
    name: 'two landings, sessions started between them',
    why: 'a lands, c starts, d lands, e starts: c and e edit nothing and touch no landed line',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'd' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }) },
      { session: 'd', write: 'other.ts', text: lines({ 7: 'd' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 3: 'b' }) },
      { land: 'a' },
      { start: 'c' },
      { land: 'd' },
      { start: 'e' },
    ],
    expect: [{ between: ['b', 'base'], level: 'soft' }],
  },
  {
    name: 'a caught-up session and a newer one',
    why: 'b merged the base in after a landed on its line; c started after and edits nothing',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 5: 'b' }), commit: true },
      { land: 'a' },
      { catchUp: 'b' },
      { start: 'c' },
    ],
    expect: [],
  },
  {
    name: 'disjoint files',
    why: 'nothing shared',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'a' }) },
      { session: 'b', write: 'other.ts', text: lines({ 28: 'b' }), commit: true },
    ],
    expect: [],
  },
  {
    name: 'identical edits',
    why: 'both make the same change to defu.ts: git merges identical changes cleanly',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'defu.ts', text: lines({ 28: 'same fix' }) },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'same fix' }), commit: true },
    ],
    expect: [],
  },
  {
    name: 'both delete the same file',
    why: 'the same end state: nothing to merge',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', write: 'other.ts', text: null },
      { session: 'b', write: 'other.ts', text: null },
    ],
    expect: [],
  },
  {
    name: 'a rename and an edit of another file',
    why: 'a moves other.ts; b edits defu.ts: no path in common',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', rename: ['other.ts', 'moved.ts'], commit: true },
      { session: 'b', write: 'defu.ts', text: lines({ 28: 'b' }) },
    ],
    expect: [],
  },
  {
    name: 'a rename landed, then a session elsewhere',
    why: 'a’s rename lands; c starts after it and edits defu.ts; b edited other.ts long before (hot against its base: the radar compares paths, it does not follow renames): the rename is not c’s change',
    files: defu,
    steps: [
      { start: 'a' },
      { start: 'b' },
      { session: 'a', rename: ['other.ts', 'moved.ts'] },
      { session: 'b', write: 'other.ts', text: lines({ 4: 'b' }) },
      { land: 'a' },
      { start: 'c' },
      { session: 'c', write: 'defu.ts', text: lines({ 9: 'c' }) },
    ],
    expect: [{ between: ['b', 'base'], level: 'hot' }],
  },
];
