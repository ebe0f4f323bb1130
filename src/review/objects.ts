/**
 * Reading a session's work straight from git's object database, never from a checkout: the files
 * of a tree (`ls-tree`), the paths two trees differ in (`diff --name-only`), and blob contents in
 * one `cat-file --batch` process. Everything keyed by an object id is immutable, so it is cached
 * by that id; the caches are bounded so a long-running supervisor does not grow without end.
 */
import { spawn } from 'node:child_process';
import { GitError } from '../shared/errors.js';
import { anchoredGitDirs, git } from '../worktrees/index.js';

/** Blobs larger than this are not read for imports or references (generated or vendored code). */
export const MAX_SCANNED_BYTES = 512 * 1024;

/** A Map that forgets its oldest entries past `limit`. */
export class Bounded<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  set(key: K, value: V): V {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as K);
    return value;
  }
  delete(key: K): void {
    this.map.delete(key);
  }
}

export interface TreeFile {
  oid: string;
  size: number;
}

/** Every blob of a tree by path (submodules and symlinks left out). */
export async function listTree(cwd: string, tree: string): Promise<Map<string, TreeFile>> {
  const { stdout } = await git(cwd, ['ls-tree', '-r', '-z', '--long', '--full-tree', tree]);
  const files = new Map<string, TreeFile>();
  for (const entry of stdout.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', type = '', oid = '', size = ''] = entry.slice(0, tab).split(/\s+/);
    if (type !== 'blob' || mode === '120000') continue;
    files.set(entry.slice(tab + 1), { oid, size: Number(size) });
  }
  return files;
}

/** The paths whose content differs between a commit and a tree (renames as delete + add), with the new blob (null: deleted). */
export async function changedBlobs(
  cwd: string,
  base: string,
  tree: string,
): Promise<{ path: string; oid: string | null }[]> {
  const { stdout } = await git(cwd, [
    'diff',
    '--raw',
    '-z',
    '--no-abbrev',
    '--no-renames',
    '--no-ext-diff',
    base,
    tree,
    '--',
  ]);
  const fields = stdout.split('\0');
  const out: { path: string; oid: string | null }[] = [];
  // ":100644 100644 <old> <new> M" NUL path NUL, repeated.
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [, newMode = '', , oid = '', status = ''] = fields[i]!.split(' ');
    if (status === 'D' || newMode === '160000') out.push({ path: fields[i + 1]!, oid: null });
    else out.push({ path: fields[i + 1]!, oid: newMode === '120000' ? null : oid });
  }
  return out;
}

/** Blob sizes by object id, through one `git cat-file --batch-check`. */
export function blobSizes(cwd: string, oids: readonly string[]): Promise<Map<string, number>> {
  return batch(cwd, '--batch-check', oids, (out) => {
    const sizes = new Map<string, number>();
    for (const line of out.toString().split('\n')) {
      const [oid = '', type = '', size = ''] = line.split(' ');
      if (type === 'blob') sizes.set(oid, Number(size));
    }
    return sizes;
  });
}

/** The contents of blobs by object id, read through one `git cat-file --batch`. */
export function readBlobs(cwd: string, oids: readonly string[]): Promise<Map<string, string>> {
  return batch(cwd, '--batch', oids, parseBatch);
}

function batch<T>(
  cwd: string,
  mode: '--batch' | '--batch-check',
  oids: readonly string[],
  parse: (out: Buffer) => Map<string, T>,
): Promise<Map<string, T>> {
  const wanted = [...new Set(oids)];
  if (wanted.length === 0) return Promise.resolve(new Map<string, T>());
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['cat-file', mode], {
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // The recorded git folders, not whichever a rewritten `.git` file names (decision 201).
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', ...anchoredGitDirs(cwd) },
    });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    // A git that exits early (a bad repository) closes its stdin: the exit code reports that, not an EPIPE crash.
    child.stdin.on('error', () => undefined);
    child.once('close', (code) => {
      if (code !== 0)
        return reject(new GitError(`git cat-file failed: ${stderr.trim()}`, ['cat-file', mode], stderr));
      resolve(parse(Buffer.concat(chunks)));
    });
    child.stdin.end(wanted.join('\n') + '\n');
  });
}

function parseBatch(out: Buffer): Map<string, string> {
  const blobs = new Map<string, string>();
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    if (eol < 0) break;
    const [oid = '', type = '', size = ''] = out.subarray(at, eol).toString().split(' ');
    if (type === 'missing' || size === '') {
      at = eol + 1;
      continue;
    }
    const length = Number(size);
    if (type === 'blob') blobs.set(oid, out.subarray(eol + 1, eol + 1 + length).toString('utf8'));
    at = eol + 1 + length + 1;
  }
  return blobs;
}

/** Whether text looks binary (a NUL in its first 8 KiB, as git decides). */
export function isBinary(text: string): boolean {
  return text.slice(0, 8192).includes('\0');
}
