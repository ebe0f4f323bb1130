/**
 * The guard of decision 200 lists the repository's settings in one git process and runs the
 * command in another: each reads the config files on its own. A file an include names is read
 * twice, and when it is not a regular file — a FIFO, a socket, a device — whoever serves it can
 * answer each reader differently: nothing to the listing, a merge driver to the command, which
 * then runs it as the user, outside the sandbox. So an include of the repository's own config
 * (`include.path`, `includeIf.<condition>.path`, in scope `local` or `worktree`) that names
 * anything but a regular file refuses the call (decision 468, "Baton's git refuses a repository
 * setting that includes something other than a regular file"). The user's own includes (system,
 * global) are theirs and are left alone.
 */
import { statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** One setting as `git config --list --show-scope --show-origin -z` gives it. */
export interface ListedSetting {
  scope: string;
  /** Where git read it: `file:<path>` (relative to the folder git ran in), `command line:`, … */
  origin: string;
  key: string;
  value: string;
}

/** An include the guard refuses, told for the message. */
export interface RefusedInclude {
  key: string;
  /** The file as git would open it, or the value as written when that cannot be told. */
  target: string;
  /** The including config file, as git reported it; empty when not a file. */
  from: string;
  /** Why, as a clause after the file's name: "which is a FIFO, not a regular file". */
  why: string;
}

/**
 * The first include among `untrusted` (settings from scopes an agent can write) that names
 * something other than a regular file, or that Baton cannot resolve as git would. `gitCwds`
 * are the folders git may have read a relative origin from: the folder it ran in, or the top of
 * its checkout (git moves there before reading the config); `home` is the listing's `HOME`.
 */
export function refusedInclude(
  untrusted: readonly ListedSetting[],
  gitCwds: readonly string[],
  home: string | undefined,
): RefusedInclude | undefined {
  for (const setting of untrusted) {
    if (!isInclude(setting.key)) continue;
    const from = setting.origin.startsWith('file:') ? setting.origin.slice('file:'.length) : '';
    const targets = includeTargets(setting.value, from, gitCwds, home);
    if (targets === undefined)
      return { key: setting.key, target: setting.value, from, why: 'which Baton cannot resolve as git does' };
    for (const target of targets) {
      const why = notRegular(target);
      if (why !== undefined) return { key: setting.key, target, from, why };
    }
  }
  return undefined;
}

/** `include.path` and `includeIf.<condition>.path`, as git matches them (config.c). */
function isInclude(key: string): boolean {
  const lower = key.toLowerCase();
  if (lower === 'include.path') return true;
  return lower.startsWith('includeif.') && lower.endsWith('.path') && lower.length > 'includeif..path'.length;
}

/**
 * Where git opens an include (`handle_path_include` and `interpolate_path` in git's config.c
 * and path.c): `~/` is `HOME`; a relative path is relative to the including file's folder.
 * Every folder in `gitCwds` that holds the including file gives a candidate; none, or a form
 * Baton does not expand (`~user/`, `%(prefix)/`), gives `undefined`: refused rather than guessed.
 */
export function includeTargets(
  value: string,
  from: string,
  gitCwds: readonly string[],
  home: string | undefined,
): string[] | undefined {
  let path = value;
  if (path === '~' || path.startsWith('~/')) {
    if (home === undefined || home === '') return undefined;
    path = join(home, path.slice(1));
  } else if (path.startsWith('~') || path.startsWith('%(prefix)/')) return undefined;
  if (isAbsolute(path)) return [path];
  if (from === '') return undefined;
  const including = isAbsolute(from) ? [from] : gitCwds.map((cwd) => resolve(cwd, from));
  const found = [...new Set(including)].filter((file) => statOf(file) !== undefined);
  if (found.length === 0) return undefined;
  return found.map((file) => join(dirname(file), path));
}

/**
 * Why `path` is refused when it exists and is not a regular file (followed through links, as
 * git opens it); a missing file is fine: git skips an include that names nothing.
 */
function notRegular(path: string): string | undefined {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return `which cannot be looked at (${code ?? String(error)})`;
  }
  if (stats.isFile()) return undefined;
  const what = stats.isFIFO()
    ? 'a FIFO'
    : stats.isSocket()
      ? 'a socket'
      : stats.isCharacterDevice() || stats.isBlockDevice()
        ? 'a device'
        : stats.isDirectory()
          ? 'a folder'
          : 'something else';
  return `which is ${what}, not a regular file`;
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
