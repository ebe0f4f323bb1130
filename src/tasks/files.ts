/**
 * Decisions and notes as Markdown in the repository's `.baton/decisions/` and `.baton/notes/`
 * (decision 73): one file per entry, named `<task>-<n>-<slug>.md`, with a small front matter
 * (`task`, `date`) above the text. One file per entry means two branches (or a person and an
 * agent) adding entries never touch the same file, so they never conflict in git.
 *
 * Files are read again whenever they changed on disk (their mtime and size), so a person's edit
 * counts at once. A file Baton cannot read is an error naming it; Baton never rewrites or
 * removes an entry file, so a broken one loses nothing.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { errorMessage } from '../shared/errors.js';
import { TaskFileError } from './errors.js';

export type EntryKind = 'decisions' | 'notes';

export interface Entry {
  kind: EntryKind;
  /** Relative to the repository root, as a person would name it. */
  file: string;
  task: number;
  date: string;
  text: string;
}

const FRONT = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;
const MAX_TEXT = 20_000;

export function entriesFolder(root: string, kind: EntryKind): string {
  return join(root, '.baton', kind);
}

export class EntryFiles {
  private readonly cache = new Map<string, { mtimeMs: number; size: number; entry: Entry }>();

  /** Every entry of the folder (of one task when given), oldest first; a broken file throws, naming itself. */
  read(root: string, kind: EntryKind, task?: number): Entry[] {
    const folder = entriesFolder(root, kind);
    let names: string[];
    try {
      names = readdirSync(folder).filter((name) => name.endsWith('.md'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new TaskFileError(relative(kind, ''), `cannot be read (${errorMessage(error)})`);
    }
    const entries = names.map((name) => this.readOne(folder, kind, name));
    return entries
      .filter((e) => task === undefined || e.task === task)
      .sort((a, b) => a.date.localeCompare(b.date) || a.file.localeCompare(b.file));
  }

  /**
   * Every readable entry of one task, and each file of the folder that cannot be read and may be
   * the task's (named for it, or named for no task), with what is wrong: one broken file hides
   * nothing else (decision 168).
   */
  readEach(
    root: string,
    kind: EntryKind,
    task: number,
  ): { entries: Entry[]; broken: { file: string; problem: string }[] } {
    const folder = entriesFolder(root, kind);
    let names: string[];
    try {
      names = readdirSync(folder).filter((name) => name.endsWith('.md'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], broken: [] };
      return {
        entries: [],
        broken: [{ file: relative(kind, ''), problem: `cannot be read (${errorMessage(error)})` }],
      };
    }
    const entries: Entry[] = [];
    const broken: { file: string; problem: string }[] = [];
    for (const name of names) {
      try {
        const entry = this.readOne(folder, kind, name);
        if (entry.task === task) entries.push(entry);
      } catch (error) {
        const named = /^(\d+)-/.exec(name);
        if (named !== null && Number(named[1]) !== task) continue;
        broken.push(
          error instanceof TaskFileError
            ? { file: error.file, problem: error.problem }
            : { file: relative(kind, name), problem: errorMessage(error) },
        );
      }
    }
    entries.sort((a, b) => a.date.localeCompare(b.date) || a.file.localeCompare(b.file));
    return { entries, broken };
  }

  /** Writes a new entry file (never over an existing one) and returns it. */
  add(root: string, kind: EntryKind, task: number, text: string, now: Date): Entry {
    const body = text.trim();
    if (body === '') throw new TaskFileError(relative(kind, ''), 'an entry needs text');
    if (body.length > MAX_TEXT)
      throw new TaskFileError(relative(kind, ''), `an entry holds at most ${MAX_TEXT} characters`);
    // Every existing file is read first: a broken one stops the write, so nothing is added beside it unseen.
    const existing = this.read(root, kind);
    const folder = entriesFolder(root, kind);
    mkdirSync(folder, { recursive: true });
    const taken = new Set(readdirSync(folder));
    let n = 1 + Math.max(0, ...existing.filter((e) => e.task === task).map((e) => numberOf(e.file, task)));
    let name = fileName(task, n, body);
    while (taken.has(name)) name = fileName(task, ++n, body);
    const date = now.toISOString();
    const content = `---\n${stringifyYaml({ task, date })}---\n\n${body}\n`;
    writeFileSync(join(folder, name), content, { flag: 'wx' });
    return { kind, file: relative(kind, name), task, date, text: body };
  }

  private readOne(folder: string, kind: EntryKind, name: string): Entry {
    const path = join(folder, name);
    const file = relative(kind, name);
    let stat;
    try {
      stat = statSync(path);
    } catch (error) {
      throw new TaskFileError(file, `cannot be read (${errorMessage(error)})`);
    }
    const cached = this.cache.get(path);
    if (cached !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size)
      return cached.entry;
    let content: string;
    try {
      content = readFileSync(path, 'utf8');
    } catch (error) {
      throw new TaskFileError(file, `cannot be read (${errorMessage(error)})`);
    }
    const entry = parseEntry(kind, file, content);
    this.cache.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, entry });
    return entry;
  }
}

/** One entry file's content; what is wrong with it is said with the file's name. */
export function parseEntry(kind: EntryKind, file: string, content: string): Entry {
  const match = FRONT.exec(content);
  if (match === null)
    throw new TaskFileError(
      file,
      'does not start with a front matter block (a line "---", "task: <number>", "date: <ISO time>", then "---")',
    );
  let front: unknown;
  try {
    front = parseYaml(match[1] ?? '');
  } catch (error) {
    throw new TaskFileError(
      file,
      `its front matter is not YAML (${errorMessage(error).split('\n')[0] ?? ''})`,
    );
  }
  if (typeof front !== 'object' || front === null || Array.isArray(front))
    throw new TaskFileError(file, 'its front matter is not a list of "key: value" lines');
  const { task, date } = front as Record<string, unknown>;
  if (typeof task !== 'number' || !Number.isInteger(task) || task < 1)
    throw new TaskFileError(
      file,
      `its "task" must be a task number, not ${JSON.stringify(task) ?? 'missing'}`,
    );
  const when = date instanceof Date ? date.toISOString() : date;
  if (typeof when !== 'string' || Number.isNaN(Date.parse(when)))
    throw new TaskFileError(
      file,
      `its "date" must be a time such as 2026-01-31T12:00:00Z, not ${JSON.stringify(date) ?? 'missing'}`,
    );
  const text = (match[2] ?? '').trim();
  if (text === '') throw new TaskFileError(file, 'has no text below its front matter');
  return { kind, file, task, date: new Date(when).toISOString(), text };
}

function relative(kind: EntryKind, name: string): string {
  return name === '' ? `.baton/${kind}/` : `.baton/${kind}/${name}`;
}

function numberOf(file: string, task: number): number {
  const match = new RegExp(`/${task}-(\\d+)-[^/]*$`).exec(file);
  return match === null ? 0 : Number(match[1]);
}

function fileName(task: number, n: number, text: string): string {
  const slug =
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'entry';
  return `${task}-${n}-${slug}.md`;
}
