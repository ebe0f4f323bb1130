import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EntryFiles, parseEntry } from './files.js';

let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'baton-task-files-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

const now = new Date('2026-01-31T12:00:00.000Z');

describe('decision and note files', () => {
  it('are one Markdown file per entry, with the task and date above the text', () => {
    const files = new EntryFiles();
    const a = files.add(
      root,
      'decisions',
      3,
      'Keep the old onChange signature: three callers depend on it.',
      now,
    );
    const b = files.add(root, 'decisions', 3, 'Keep the old onChange signature, again', now);
    files.add(root, 'decisions', 4, 'Another task', now);
    expect(a.file).toBe('.baton/decisions/3-1-keep-the-old-onchange-signature-three-ca.md');
    expect(b.file).toMatch(/^\.baton\/decisions\/3-2-/);
    expect(readFileSync(join(root, a.file), 'utf8')).toBe(
      '---\ntask: 3\ndate: 2026-01-31T12:00:00.000Z\n---\n\nKeep the old onChange signature: three callers depend on it.\n',
    );
    expect(files.read(root, 'decisions', 3).map((e) => e.text)).toEqual([a.text, b.text]);
    expect(files.read(root, 'notes', 3)).toEqual([]);
  });

  it('are read again after a person edits one', () => {
    const files = new EntryFiles();
    const a = files.add(root, 'notes', 1, 'first', now);
    expect(files.read(root, 'notes', 1)[0]?.text).toBe('first');
    writeFileSync(
      join(root, a.file),
      '---\ntask: 1\ndate: 2026-01-31T12:00:00Z\nauthor: me\n---\nedited by hand, longer\n',
    );
    utimesSync(join(root, a.file), new Date(), new Date(Date.now() + 5000));
    expect(files.read(root, 'notes', 1)[0]?.text).toBe('edited by hand, longer');
  });

  it('a broken file is an error naming it, and nothing is written beside it', () => {
    const files = new EntryFiles();
    mkdirSync(join(root, '.baton', 'notes'), { recursive: true });
    writeFileSync(join(root, '.baton', 'notes', 'mine.md'), 'no front matter here\n');
    expect(() => files.read(root, 'notes', 1)).toThrow(
      /\.baton\/notes\/mine\.md: does not start with a front matter block/,
    );
    expect(() => files.add(root, 'notes', 1, 'x', now)).toThrow(/mine\.md/);
    expect(readdirSync(join(root, '.baton', 'notes'))).toEqual(['mine.md']);
    expect(readFileSync(join(root, '.baton', 'notes', 'mine.md'), 'utf8')).toBe('no front matter here\n');
  });

  it('names what is wrong in the front matter', () => {
    expect(() => parseEntry('notes', 'f.md', '---\ntask: [\n---\nx')).toThrow(
      /f\.md: its front matter is not YAML/,
    );
    expect(() => parseEntry('notes', 'f.md', '---\ntask: three\ndate: 2026-01-01\n---\nx')).toThrow(
      /"task" must be a task number, not "three"/,
    );
    expect(() => parseEntry('notes', 'f.md', '---\ntask: 3\n---\nx')).toThrow(/"date" must be a time/);
    expect(() => parseEntry('notes', 'f.md', '---\ntask: 3\ndate: 2026-01-01T00:00:00Z\n---\n\n')).toThrow(
      /has no text/,
    );
  });

  it('refuses an empty entry', () => {
    expect(() => new EntryFiles().add(root, 'notes', 1, '   ', now)).toThrow(/needs text/);
  });
});
