/**
 * Provenance on the commits Baton lands, as git notes under `refs/notes/baton`: for each commit
 * that brought a session's lines onto the base, which of its lines (numbered as in that commit)
 * each turn wrote, and the turns' records. Notes outlive Baton's database and travel with
 * `git push <remote> refs/notes/baton`. A commit gets its note whatever the landing did with it:
 * kept as it was (a fast-forward, or a merge commit's second parent), or made anew (a squash, a
 * group's squashes): its added lines are found in the session's work by git's own diff, so the
 * lines git blame later points at it are the lines the note names.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { OneAtATime } from '../shared/one-at-a-time.js';
import { markPoint } from '../shared/test-points.js';
import { git, gitOut } from '../worktrees/index.js';
import { attributeWork, type Attribution } from './attribute.js';
import { addedLines, mapLine, parseDiff, type Hunk } from './diff.js';
import type { TurnRecord } from './record.js';

export const NOTES_REF = 'refs/notes/baton';

/**
 * Writers of `refs/notes/baton`, one at a time per repository (decision 455): a landing's `git
 * notes add` and sync's `git notes merge` each read the notes, write a notes commit on what they
 * read and move the ref without a compare-and-swap, so two at once leave only the last one's
 * commit and the other's notes are lost (and sync then pushes that loss with its lease).
 */
const notesWriters = new OneAtATime();

/**
 * Runs `work`, which reads and writes `refs/notes/baton` in the repository at `root`, once no
 * other writer of that ref in this process is under way. Every writer of the ref goes through here.
 */
export function whileWritingNotes<T>(root: string, work: () => Promise<T>): Promise<T> {
  const key = resolve(root);
  // Race tests learn that this writer waits for another (src/shared/test-points.ts).
  if (notesWriters.busy(key)) markPoint('notes.writer-waiting');
  return notesWriters.run(key, work);
}

/** A note: `files[path]` lists `[first line, count, index into turns]`. */
export interface ProvenanceNote {
  baton: 1;
  turns: TurnRecord[];
  files: Record<string, [number, number, number][]>;
}

export interface LandedMember {
  sessionId: string;
  base: string;
  /** The branch tip that was merged (after Baton committed the work on disk). */
  tip: string;
  /** What the landing made of it: the tip itself, a merge commit, or a squash commit. */
  head: string;
}

export interface Landing {
  root: string;
  previous: string;
  commit: string;
  squash: boolean;
  members: LandedMember[];
  /** Fills in what a record could not know at its turn's end (the handoff a session came from is linked after it starts). */
  complete?: (record: TurnRecord) => TurnRecord;
}

/** Writes the notes of a landing; returns how many commits got one and how many lines they name. */
export async function noteLanding(landing: Landing): Promise<{ commits: number; lines: number }> {
  const { root } = landing;
  const attributions: Attribution[] = [];
  for (const m of landing.members) {
    const found = await attributeWork({ root, sessionId: m.sessionId, base: m.base, tip: m.tip });
    const { complete } = landing;
    attributions.push(complete === undefined ? found : { ...found, turns: found.turns.map(complete) });
  }
  const owners = await ownersOf(landing);
  let commits = 0;
  let lines = 0;
  for (const [commit, index] of owners) {
    const member = landing.members[index]!;
    const attribution = attributions[index]!;
    if (attribution.turns.length === 0) continue;
    const note = await noteFor(root, commit, member.tip, attribution);
    if (note === undefined) continue;
    await writeNote(root, commit, note);
    commits += 1;
    for (const ranges of Object.values(note.files)) for (const [, count] of ranges) lines += count;
  }
  return { commits, lines };
}

/** Each commit of the landing that can carry lines (merges carry none of their own), and its member. */
async function ownersOf(landing: Landing): Promise<Map<string, number>> {
  const owners = new Map<string, number>();
  if (landing.squash) {
    landing.members.forEach((m, index) => owners.set(m.head, index));
    return owners;
  }
  for (const [index, m] of landing.members.entries()) {
    const own = await gitOut(landing.root, ['rev-list', '--no-merges', m.tip, `^${landing.previous}`]);
    for (const sha of own.split('\n')) if (sha !== '' && !owners.has(sha)) owners.set(sha, index);
  }
  return owners;
}

/** The lines `commit` added that a turn of the session wrote, numbered as in `commit`. */
async function noteFor(
  root: string,
  commit: string,
  tip: string,
  attribution: Attribution,
): Promise<ProvenanceNote | undefined> {
  const quiet = ['-c', 'core.quotePath=false'];
  const added = parseDiff(
    await gitOut(root, [
      ...quiet,
      'diff',
      '-U0',
      '--no-color',
      '--no-renames',
      '--no-ext-diff',
      `${commit}^`,
      commit,
    ]),
  );
  const paths = [...added.keys()].filter((p) => attribution.files.has(p));
  if (paths.length === 0) return undefined;
  // Where the commit's lines are in the session's work (the same file, unless later turns or
  // the base's own changes moved them).
  const toTip =
    commit === tip
      ? new Map<string, Hunk[]>()
      : parseDiff(
          await gitOut(root, [
            ...quiet,
            '--literal-pathspecs',
            'diff',
            '-U0',
            '--no-color',
            '--no-renames',
            '--no-ext-diff',
            commit,
            tip,
            '--',
            ...paths,
          ]),
        );
  const used = new Map<number, number>();
  const turns: TurnRecord[] = [];
  const files: ProvenanceNote['files'] = {};
  for (const path of paths) {
    const owners = attribution.files.get(path)!;
    const hunks = toTip.get(path) ?? [];
    const ranges: [number, number, number][] = [];
    for (const line of addedLines(added.get(path)!)) {
      const there = mapLine(hunks, line);
      const owner = there === undefined ? -1 : (owners[there - 1] ?? -1);
      if (owner < 0) continue;
      let index = used.get(owner);
      if (index === undefined) {
        index = turns.length;
        used.set(owner, index);
        turns.push(attribution.turns[owner]!);
      }
      const last = ranges[ranges.length - 1];
      if (last !== undefined && last[2] === index && last[0] + last[1] === line) last[1] += 1;
      else ranges.push([line, 1, index]);
    }
    if (ranges.length > 0) files[path] = ranges;
  }
  return Object.keys(files).length === 0 ? undefined : { baton: 1, turns, files };
}

/** Writes `note` as the note of `commit` (replacing one it had), behind the other writers of the ref. */
export async function writeNote(root: string, commit: string, note: ProvenanceNote): Promise<void> {
  // A note can outgrow a command-line argument: it goes through a private file.
  const folder = mkdtempSync(join(tmpdir(), 'baton-note-'));
  try {
    const file = join(folder, 'note.json');
    writeFileSync(file, `${JSON.stringify(note)}\n`, { mode: 0o600 });
    await whileWritingNotes(root, () =>
      git(root, ['notes', `--ref=${NOTES_REF}`, 'add', '-f', '-F', file, commit], {
        env: {
          GIT_AUTHOR_NAME: 'Baton',
          GIT_AUTHOR_EMAIL: 'baton@localhost',
          GIT_COMMITTER_NAME: 'Baton',
          GIT_COMMITTER_EMAIL: 'baton@localhost',
        },
      }),
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The notes of `commits` (those that have a readable one). */
export async function readNotes(
  cwd: string,
  commits: readonly string[],
): Promise<Map<string, ProvenanceNote>> {
  const notes = new Map<string, ProvenanceNote>();
  if (commits.length === 0) return notes;
  const out = await gitOut(cwd, [
    'log',
    '--no-walk=unsorted',
    `--notes=${NOTES_REF}`,
    '--format=%H%x1f%N%x1e',
    ...commits,
  ]);
  for (const entry of out.split('\x1e')) {
    const [sha, body] = entry.trim().split('\x1f');
    if (sha === undefined || body === undefined || body.trim() === '') continue;
    const note = parseNote(body);
    if (note !== undefined) notes.set(sha, note);
  }
  return notes;
}

/**
 * A note's JSON; undefined for a note that is not Baton's or does not read (an edit by hand, say).
 * Notes merged from two clones (`cat_sort_uniq`, decision 294) hold one JSON line per side: their
 * turns are joined and each file's ranges kept, the first line's first where two name one line.
 */
export function parseNote(text: string): ProvenanceNote | undefined {
  const parts = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map(parseOne);
  const read = parts.filter((p): p is ProvenanceNote => p !== undefined);
  if (read.length <= 1) return read[0] ?? (parts.length === 0 ? undefined : parseOne(text));
  const joined: ProvenanceNote = { baton: 1, turns: [], files: {} };
  for (const note of read) {
    const offset = joined.turns.length;
    joined.turns.push(...note.turns);
    for (const [path, ranges] of Object.entries(note.files))
      joined.files[path] = [
        ...(joined.files[path] ?? []),
        ...ranges.map(([first, count, index]): [number, number, number] => [first, count, index + offset]),
      ];
  }
  return joined;
}

function parseOne(text: string): ProvenanceNote | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<ProvenanceNote>;
    if (
      parsed.baton !== 1 ||
      !Array.isArray(parsed.turns) ||
      typeof parsed.files !== 'object' ||
      parsed.files === null
    )
      return undefined;
    return parsed as ProvenanceNote;
  } catch {
    return undefined;
  }
}

/** The turn that wrote line `line` of `path` as it is in the noted commit. */
export function turnAt(note: ProvenanceNote, path: string, line: number): TurnRecord | undefined {
  const ranges = note.files[path];
  if (ranges === undefined) return undefined;
  for (const [first, count, index] of ranges)
    if (line >= first && line < first + count) return note.turns[index];
  return undefined;
}
