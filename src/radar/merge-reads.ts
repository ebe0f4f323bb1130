/**
 * What git's merge of two sides reads of the repository besides the sides themselves, as text
 * for the key of its cached verdict (decision 467). Git 2.39's `merge-tree --write-tree`, run in
 * the main checkout, takes a path's attributes from the `.gitattributes` files of the checkout's
 * own folders (the working files, not the index's), `info/attributes` in the git folder and the
 * file `core.attributesFile` names; and the settings that say how a file merges: `merge.*` (its
 * drivers, `merge.renormalize`, rename limits), `core.*` (eol, autocrlf), `diff.renames`. None of
 * that is in the sides' trees, so a verdict keyed by them alone outlives a change to it.
 *
 * Each file is read once per pass (`beginPass`), not once per pair. A file that is not a regular
 * file (a FIFO an agent made, say) is never read: its kind is the text, so nothing waits on it.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { SharedListing } from '../worktrees/index.js';

export type SettingsEntries = Awaited<NonNullable<SharedListing['entries']>>;

/** Past this a file is told by its size, time and inode rather than hashed. */
const HASHED_BYTES = 1024 * 1024;

/** The settings of a listing that change what git's merge makes of a file, in the listing's order (the last one wins). */
export function mergeSettings(entries: SettingsEntries): string {
  return entries
    .filter(({ key }) => {
      const lower = key.toLowerCase();
      return (
        lower.startsWith('merge.') ||
        lower.startsWith('core.') ||
        lower === 'diff.renames' ||
        lower === 'diff.renamelimit'
      );
    })
    .map(({ scope, key, value }) => `${scope} ${key}=${value}`)
    .join('\n');
}

export class MergeReads {
  private repositories = new Map<string, Promise<string | undefined>>();
  private files = new Map<string, Promise<string>>();

  /** A pass begins: every file is read again. */
  beginPass(): void {
    this.repositories = new Map();
    this.files = new Map();
  }

  /**
   * What git's merge in `repo` reads for `paths` (the paths both sides change, the only ones
   * whose content it merges) beyond the sides' trees, with the repository's identity: two clones
   * added as separate projects share no verdict. Undefined (git asked every time) when the main
   * checkout's git folder is not a folder of its own.
   */
  async of(repo: string, settings: string, paths: Iterable<string>): Promise<string | undefined> {
    const repository = await this.repository(repo, settings);
    if (repository === undefined) return undefined;
    const folders = new Set<string>(['']);
    for (const path of paths)
      for (let dir = dirname(path); dir !== '.' && dir !== '/'; dir = dirname(dir)) folders.add(dir);
    const attributes = await Promise.all(
      [...folders]
        .sort()
        .map(async (dir) => `${dir}/.gitattributes ${await this.file(join(repo, dir, '.gitattributes'))}`),
    );
    return [repository, ...attributes].join('\0');
  }

  private repository(repo: string, settings: string): Promise<string | undefined> {
    let found = this.repositories.get(repo);
    if (found === undefined) {
      found = this.readRepository(repo, settings);
      this.repositories.set(repo, found);
    }
    return found;
  }

  private async readRepository(repo: string, settings: string): Promise<string | undefined> {
    const gitDir = join(repo, '.git');
    const folder = await lstat(gitDir).then(
      (stat) => stat.isDirectory(),
      () => false,
    );
    if (!folder) return undefined;
    const [info, user] = await Promise.all([
      this.file(join(gitDir, 'info', 'attributes')),
      this.file(attributesFile(repo, settings)),
    ]);
    return [`repository ${repo}`, settings, `info/attributes ${info}`, `core.attributesFile ${user}`].join(
      '\0',
    );
  }

  private file(path: string): Promise<string> {
    let read = this.files.get(path);
    if (read === undefined) {
      read = describeFile(path);
      this.files.set(path, read);
    }
    return read;
  }
}

/** The file `core.attributesFile` names, or git's default for it. */
function attributesFile(repo: string, settings: string): string {
  let named: string | undefined;
  for (const line of settings.split('\n')) {
    const at = line.indexOf(' ');
    const equals = line.indexOf('=');
    if (line.slice(at + 1, equals).toLowerCase() === 'core.attributesfile') named = line.slice(equals + 1);
  }
  if (named === undefined || named === '') {
    const xdg = process.env['XDG_CONFIG_HOME'];
    return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.config'), 'git', 'attributes');
  }
  if (named.startsWith('~/')) return join(homedir(), named.slice(2));
  return isAbsolute(named) ? named : join(repo, named);
}

/** A file's content as a hash, or what stands there instead; opened without waiting, so a FIFO never holds the pass. */
async function describeFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return `absent (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return `not a file (mode ${stat.mode.toString(8)})`;
    if (stat.size > HASHED_BYTES) return `large ${stat.size} ${stat.mtimeMs} ${stat.ino}`;
    return createHash('sha1')
      .update(await handle.readFile())
      .digest('hex');
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  } finally {
    await handle.close();
  }
}
