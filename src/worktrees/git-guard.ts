/**
 * Baton runs git as the user, outside the agent's sandbox, in repositories whose git folder an
 * agent can write. Git runs programs its settings name — a clean/smudge filter or a textconv a
 * `.gitattributes` selects, a merge driver, an ssh command, a pager, an editor, a signing
 * program, a credential helper — and `include.path` lets a setting come from any file. Here every
 * such setting that comes from the repository's own config (scopes `local` and `worktree`, files
 * they include too) is overridden on the command line (`GIT_CONFIG_COUNT`, which git reads last):
 * back to the user's own value when the user's config (system, global) has one, else to a value
 * that runs nothing. The user's own settings stay in force (a git-lfs filter, say). Decision 200,
 * "Baton's git runs no program a repository's config names" (amends 196). An include of the
 * repository's that names anything but a regular file refuses the call (decision 468).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { GitError } from '../shared/errors.js';
import { refusedInclude, type ListedSetting } from './git-includes.js';
import {
  isLocalUrl,
  LOCAL_RECEIVE_PACK,
  LOCAL_UPLOAD_PACK,
  transportTarget,
  urlsFor,
} from './git-transport.js';
import { execGit } from './git-runner.js';

/** Always: no fsmonitor, no hooks for Baton's own commits, merges and pushes (decision 196). */
const ALWAYS: [string, string][] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
];

export const GIT_BASE_ENV: NodeJS.ProcessEnv = {
  // Never wait on a prompt from a background process.
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
};

interface Guarded {
  /** The value that runs nothing (or the program git would run with the key unset). */
  neutral: string;
  /** A list (each value adds one, an empty value empties it) rather than last-one-wins. */
  list?: boolean;
}

/**
 * The settings that name a program, by git's spelling of the key (section and name in lower
 * case, a subsection as written). Checked against git 2.39's documentation of `git config`.
 */
function guarded(key: string): Guarded | undefined {
  const parts = splitKey(key);
  if (parts === undefined) return undefined;
  const { section, sub, name } = parts;
  if (sub === undefined) {
    const plain: Record<string, Guarded> = {
      'core.sshcommand': { neutral: 'ssh' },
      'core.pager': { neutral: 'cat' },
      'core.editor': { neutral: 'true' },
      'core.askpass': { neutral: '' },
      'core.alternaterefscommand': { neutral: '' },
      'sequence.editor': { neutral: 'true' },
      'gpg.program': { neutral: 'gpg' },
      'diff.external': { neutral: 'true' },
      'credential.helper': { neutral: '', list: true },
      'uploadpack.packobjectshook': { neutral: '' },
      // Signing runs the signing program; a repository does not decide that Baton's commits sign.
      'commit.gpgsign': { neutral: 'false' },
      'tag.gpgsign': { neutral: 'false' },
      'push.gpgsign': { neutral: 'false' },
      'log.showsignature': { neutral: 'false' },
    };
    return plain[`${section}.${name}`];
  }
  switch (section) {
    case 'filter':
      // An empty command is no filter (git's convert.c); `required` would then fail the call.
      if (name === 'clean' || name === 'smudge' || name === 'process') return { neutral: '' };
      if (name === 'required') return { neutral: 'false' };
      return undefined;
    case 'diff':
      if (name === 'textconv') return { neutral: 'cat' };
      if (name === 'command') return { neutral: 'true' };
      return undefined;
    case 'merge':
      // A driver that fails leaves the file conflicted: Baton reports a conflict, runs nothing.
      return name === 'driver' ? { neutral: 'false' } : undefined;
    case 'pager':
      return { neutral: 'false' };
    case 'gpg':
      if (name === 'program')
        return { neutral: sub === 'x509' ? 'gpgsm' : sub === 'ssh' ? 'ssh-keygen' : 'gpg' };
      if (sub === 'ssh' && name === 'defaultkeycommand') return { neutral: '' };
      return undefined;
    case 'credential':
      return name === 'helper' ? { neutral: '', list: true } : undefined;
    case 'remote':
      if (name === 'uploadpack') return { neutral: 'git-upload-pack' };
      if (name === 'receivepack') return { neutral: 'git-receive-pack' };
      return undefined;
    case 'protocol':
      // `ext::` runs a command as the transport.
      return sub === 'ext' && name === 'allow' ? { neutral: 'never' } : undefined;
    case 'trailer':
      return name === 'cmd' || name === 'command' ? { neutral: 'true' } : undefined;
    case 'submodule':
      // `update = !command` runs it at `git submodule update`.
      return name === 'update' ? { neutral: 'checkout' } : undefined;
    case 'mergetool':
    case 'difftool':
      return name === 'cmd' || name === 'path' ? { neutral: 'true' } : undefined;
    default:
      return undefined;
  }
}

function splitKey(key: string): { section: string; sub: string | undefined; name: string } | undefined {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last === key.length - 1) return undefined;
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  return { section, sub: first === last ? undefined : key.slice(first + 1, last), name };
}

/** Scopes whose settings are the user's own; the rest (`local`, `worktree`) an agent can write. */
const TRUSTED_SCOPES = new Set(['system', 'global', 'command']);

type Entry = ListedSetting;

/**
 * Parses `git config --list --show-scope --show-origin -z`: `scope NUL origin NUL key LF value
 * NUL`, repeated.
 */
export function parseConfigList(out: string): Entry[] {
  const fields = out.split('\0');
  const entries: Entry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const scope = fields[i] ?? '';
    const origin = fields[i + 1] ?? '';
    const keyValue = fields[i + 2] ?? '';
    const newline = keyValue.indexOf('\n');
    // A key given with no `=` has no value line: for these keys git treats it as an error or true.
    const key = newline === -1 ? keyValue : keyValue.slice(0, newline);
    const value = newline === -1 ? '' : keyValue.slice(newline + 1);
    entries.push({ scope, origin, key, value });
  }
  return entries;
}

/** The command-line settings that undo every program-naming setting of the repository's config. */
export function overridesFor(entries: Entry[]): [string, string][] {
  const byKey = new Map<string, { rule: Guarded; trusted: string[]; untrusted: boolean }>();
  for (const entry of entries) {
    const rule = guarded(entry.key);
    if (rule === undefined) continue;
    const slot = byKey.get(entry.key) ?? { rule, trusted: [], untrusted: false };
    if (TRUSTED_SCOPES.has(entry.scope)) slot.trusted.push(entry.value);
    else slot.untrusted = true;
    byKey.set(entry.key, slot);
  }
  const overrides: [string, string][] = [];
  for (const [key, { rule, trusted, untrusted }] of byKey) {
    if (!untrusted) continue;
    if (rule.list) {
      // Empty the list, then the user's own helpers again, in their order.
      overrides.push([key, rule.neutral]);
      for (const value of trusted) overrides.push([key, value]);
    } else overrides.push([key, trusted.at(-1) ?? rule.neutral]);
  }
  // `ext::` is refused unless the user's own config allows it, whatever the repository says.
  if (!entries.some((e) => TRUSTED_SCOPES.has(e.scope) && e.key.toLowerCase() === 'protocol.ext.allow'))
    overrides.push(['protocol.ext.allow', 'never']);
  return overrides;
}

/**
 * Subcommands that run no program a setting names (no checkout, no content filtering, no diff
 * text, no transport, no signing): these skip reading the config first. Anything else is guarded.
 */
const INERT = new Set([
  'rev-parse',
  'rev-list',
  'merge-base',
  'for-each-ref',
  'show-ref',
  'symbolic-ref',
  'update-ref',
  'ls-tree',
  'mktree',
  'config',
  'var',
  'check-ref-format',
  'version',
]);

/** The subcommand of a git argument list: the first word after the global options. */
export function subcommandOf(args: readonly string[]): { index: number; name: string } | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (
      arg === '-c' ||
      arg === '-C' ||
      arg === '--git-dir' ||
      arg === '--work-tree' ||
      arg === '--namespace'
    ) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return { index: i, name: arg };
  }
  return undefined;
}

function needsGuard(args: readonly string[]): boolean {
  const sub = subcommandOf(args);
  if (sub === undefined) return false;
  if (sub.name === 'cat-file')
    return args.some((a) => a === '--textconv' || a === '--filters' || a.startsWith('--path'));
  if (sub.name === 'worktree') return !['list', 'prune'].includes(args[sub.index + 1] ?? '');
  // Unsigned, a commit-tree runs no program: no hook, no signer (decision 449). The option right
  // after the subcommand, so no message or other value can pass for it.
  if (sub.name === 'commit-tree') return args[sub.index + 1] !== '--no-gpg-sign';
  return !INERT.has(sub.name);
}

/** Commands that show diffs: an external diff or textconv the config names is not run. */
const SHOWS_DIFFS = new Set(['diff', 'log', 'show', 'whatchanged', 'format-patch', 'stash']);

/**
 * The arguments with what the config cannot undo: `--no-ext-diff --no-textconv` after a
 * diff-showing subcommand, and git's own upload-pack/receive-pack for a transport (git takes the
 * first `remote.<name>.uploadpack` it reads, the repository's, so a command-line setting cannot
 * override it; the option can). When the other repository is on this machine (`entries`, the
 * listed config, says where the remote leads), its side runs with its hooks off (decision 274).
 */
export function guardedArgs(args: string[], entries: readonly Entry[] = []): string[] {
  const sub = subcommandOf(args);
  if (sub === undefined) return args;
  const insert = (at: number, ...extra: string[]) => [...args.slice(0, at), ...extra, ...args.slice(at)];
  const after = sub.index + 1;
  const local = (push: boolean) => {
    const target = transportTarget(args);
    return target !== undefined && urlsFor(target, entries, push).some(isLocalUrl);
  };
  switch (sub.name) {
    case 'fetch':
    case 'pull':
    case 'ls-remote':
    case 'clone':
      return insert(after, `--upload-pack=${local(false) ? LOCAL_UPLOAD_PACK : 'git-upload-pack'}`);
    case 'push':
      return insert(after, `--receive-pack=${local(true) ? LOCAL_RECEIVE_PACK : 'git-receive-pack'}`);
    case 'stash':
      // `stash show` takes diff options; other stash subcommands do not.
      return args[after] === 'show' ? insert(after + 1, '--no-ext-diff', '--no-textconv') : args;
    default:
      return SHOWS_DIFFS.has(sub.name) ? insert(after, '--no-ext-diff', '--no-textconv') : args;
  }
}

/** The environment with `settings` appended to the command-line settings already in it. */
function withSettings(env: NodeJS.ProcessEnv, settings: [string, string][]): NodeJS.ProcessEnv {
  const out = { ...env };
  const existing = Number.parseInt(env['GIT_CONFIG_COUNT'] ?? '', 10);
  let n = Number.isInteger(existing) && existing > 0 ? existing : 0;
  for (const [key, value] of settings) {
    out[`GIT_CONFIG_KEY_${n}`] = key;
    out[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  out['GIT_CONFIG_COUNT'] = String(n);
  return out;
}

/** Where each setting comes from too: a relative include is resolved against its file (decision 468). */
const LIST_ARGS = ['config', '--list', '--show-scope', '--show-origin', '-z'];
/** Far past any real repository's settings; past it the listing fails and the command is refused. */
const LIST_BUFFER = 16 * 1024 * 1024;
/*
 * The listing reads every file the settings include, and `include.path` may name a FIFO the agent
 * made: the read would wait for ever, and every git call Baton makes in the repository (every
 * session's snapshots, diffs, landings) with it. Past this the listing is stopped and the command
 * refused (decision 270); a command's own shorter limit applies to its listing too.
 */
const LIST_TIMEOUT_MS = 30_000;

/*
 * The settings could not be listed in a folder that exists. Running the command anyway would run
 * it with none of the repository's settings undone: an agent that grows the repository's config
 * past the listing's buffer, or makes `git config --list` alone fail, would get its filter run as
 * the user. So the command is refused (decision 270). A folder that is gone needs no guard: the
 * command fails there on its own.
 */
function unreadConfig(cwd: string, args: readonly string[], why: string, stderr: string): GitError {
  const said = stderr.trim().split('\n')[0] ?? '';
  return new GitError(
    `Baton runs no git ${subcommandOf(args)?.name ?? ''} in ${cwd}: the repository's settings could not be read to undo the programs they name (${said || why})`,
    [...args],
    stderr,
  );
}

/*
 * The listing and the command read the config files each on its own: a file an include of the
 * repository's names that is not a regular file (a FIFO, a socket) may answer the two readers
 * differently, and the command would run a program the listing never saw. Such a listing refuses
 * the command (decision 468). A regular file changed between the two reads is the window of
 * decisions 200 and 450, not closed here.
 */
function checkedIncludes(
  cwd: string,
  args: readonly string[],
  entries: Entry[],
  env: NodeJS.ProcessEnv,
): Entry[] {
  const untrusted = entries.filter((entry) => !TRUSTED_SCOPES.has(entry.scope));
  const refused = refusedInclude(untrusted, [cwd, checkoutOf(cwd)], env['HOME']);
  if (refused === undefined) return entries;
  const from = refused.from === '' ? '' : ` (in ${refused.from})`;
  throw new GitError(
    `Baton runs no git ${subcommandOf(args)?.name ?? ''} in ${cwd}: the repository's setting ${refused.key}${from} includes ${refused.target}, ${refused.why}: git reads an include once to list the settings and again for the command, and only a regular file is sure to give both the same (decision 468). Remove the setting, or make it name a regular file.`,
    [...args],
    '',
  );
}

/** The environment Baton's git runs with: the fixed settings, then the repository's undone. */
export async function guardedEnv(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = LIST_TIMEOUT_MS,
): Promise<NodeJS.ProcessEnv> {
  return (await guardedCall(cwd, [...args], env, timeoutMs)).env;
}

/**
 * One operation's look at a repository's settings, shared by its git calls one after the other
 * (a snapshot's `add` and `write-tree`): listed at its first guarded call, in its folder, and
 * not again for the next (decision 449). The window in which a changed setting goes unseen is
 * the operation's few calls, as it was the one call's before.
 */
export interface SharedListing {
  cwd?: string;
  entries?: Promise<Entry[]>;
}

/** The environment and the arguments of one guarded git call, from one listing of the config. */
export async function guardedCall(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = LIST_TIMEOUT_MS,
  shared?: SharedListing,
): Promise<{ env: NodeJS.ProcessEnv; args: string[] }> {
  const base = withSettings({ ...env, ...GIT_BASE_ENV, ...anchoredGitDirs(cwd) }, ALWAYS);
  if (!needsGuard(args)) return { env: base, args: guardedArgs(args) };
  let listing = shared?.cwd === cwd ? shared.entries : undefined;
  if (listing === undefined) {
    listing = listConfig(cwd, args, base, timeoutMs);
    if (shared !== undefined) {
      shared.cwd = cwd;
      shared.entries = listing;
    }
  }
  const entries = await listing;
  return { env: withSettings(base, overridesFor(entries)), args: guardedArgs(args, entries) };
}

async function listConfig(
  cwd: string,
  args: string[],
  base: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Entry[]> {
  const listed = await new Promise<string>((resolve, reject) => {
    const limit = Math.min(timeoutMs, LIST_TIMEOUT_MS);
    execGit(
      LIST_ARGS,
      { cwd, env: base, maxBuffer: LIST_BUFFER, timeout: limit },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else if (!existsSync(cwd)) resolve('');
        else reject(unreadConfig(cwd, args, error.message, stderr));
      },
    );
  });
  return checkedIncludes(cwd, args, parseConfigList(listed), base);
}

/** As `guardedEnv`, for the synchronous callers (a checkpoint inside the gate's judgment). */
export function guardedEnvSync(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const base = withSettings({ ...env, ...GIT_BASE_ENV, ...anchoredGitDirs(cwd) }, ALWAYS);
  if (!needsGuard(args)) return base;
  const listed = spawnSync('git', LIST_ARGS, {
    cwd,
    env: base,
    encoding: 'utf8',
    maxBuffer: LIST_BUFFER,
    timeout: LIST_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  if (listed.status === 0 && listed.error === undefined)
    return withSettings(base, overridesFor(checkedIncludes(cwd, args, parseConfigList(listed.stdout), base)));
  if (!existsSync(cwd)) return base;
  throw unreadConfig(cwd, args, listed.error?.message ?? `exit ${listed.status}`, listed.stderr ?? '');
}

/*
 * Where a session's git folders are. A linked worktree's `.git` file names its git folder, and
 * the agent can rewrite it to name one of its own making (with settings of its choosing, and
 * where Baton's snapshots and checkpoints would be kept away from the repository). For a
 * worktree Baton recorded, git is told its folders (`GIT_DIR`, `GIT_COMMON_DIR`,
 * `GIT_WORK_TREE`) from the recorded repository instead: its own `.git` folder, and the entry
 * under its `worktrees/` whose `gitdir` names this worktree. Decision 201.
 */

/** Worktrees and their recorded repository (the session host records its own). */
const anchors = new Map<string, string>();
/** The supervisor's records: a session's worktree to its repository's root. */
let resolver: ((worktree: string) => string | undefined) | undefined;

/** Records that `worktree` belongs to the repository whose main checkout is `repository`. */
export function anchorWorktree(worktree: string, repository: string): void {
  anchors.set(worktree, repository);
}

/** Installs where the records are looked up (the session store); `undefined` removes it. */
export function setWorktreeResolver(resolve: ((worktree: string) => string | undefined) | undefined): void {
  resolver = resolve;
}

function repositoryOf(checkout: string): string | undefined {
  const anchored = anchors.get(checkout);
  if (anchored !== undefined) return anchored;
  try {
    return resolver?.(checkout);
  } catch {
    // A store closed meanwhile (a test's, or a supervisor stopping): no record to go by.
    return undefined;
  }
}

/** The folder whose `.git` git would take for `cwd`: the nearest one holding a `.git`, else `cwd`. */
function checkoutOf(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}

const resolved = new Map<string, NodeJS.ProcessEnv>();

/** The git folders of `cwd` from the records, or nothing when `cwd` is no recorded worktree. */
export function anchoredGitDirs(cwd: string): NodeJS.ProcessEnv {
  const checkout = checkoutOf(cwd);
  const repository = repositoryOf(checkout) ?? (checkout === cwd ? undefined : repositoryOf(cwd));
  if (repository === undefined) return {};
  const worktree = repositoryOf(checkout) === undefined ? cwd : checkout;
  const key = `${repository}\0${worktree}`;
  const known = resolved.get(key);
  if (known !== undefined && existsSync(known['GIT_DIR'] ?? '')) return known;
  const found = gitDirsFromRecords(repository, worktree);
  resolved.set(key, found);
  return found;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function gitDirsFromRecords(repository: string, worktree: string): NodeJS.ProcessEnv {
  const common = join(repository, '.git');
  let isFolder = false;
  try {
    isFolder = lstatSync(common).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder)
    throw new GitError(
      `the repository ${repository} has no .git folder; Baton will not run git in ${worktree} without it`,
      [],
      '',
    );
  if (real(worktree) === real(repository)) return { GIT_DIR: common, GIT_WORK_TREE: worktree };
  const folder = join(common, 'worktrees');
  let names: string[] = [];
  try {
    names = readdirSync(folder);
  } catch {
    names = [];
  }
  // git names the entry after the worktree's folder (with a number when taken): that one first.
  const own = basename(worktree);
  names.sort((a, b) => Number(b === own) - Number(a === own));
  const target = real(worktree);
  for (const name of names) {
    let gitdir: string;
    try {
      gitdir = readFileSync(join(folder, name, 'gitdir'), 'utf8').trim();
    } catch {
      continue;
    }
    if (gitdir !== '' && real(dirname(gitdir)) === target)
      return { GIT_DIR: join(folder, name), GIT_COMMON_DIR: common, GIT_WORK_TREE: worktree };
  }
  throw new GitError(
    `${worktree} is not among the worktrees of ${repository} (its .git file may have been rewritten); Baton runs no git there`,
    [],
    '',
  );
}
