/**
 * Bubblewrap (`bwrap`), the unprivileged sandbox Claude Code's and Codex's own Linux sandboxes
 * use: a new mount namespace in which Baton's state folder is an empty tmpfs with only the
 * session's own folders bound back, a new PID namespace with its own /proc (no other process's
 * environment or command line to read), and no capabilities (so root inside cannot unmount the
 * tmpfs to see what lies under it, nor enter another namespace).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';

/** What the agent's process tree sees of the machine. */
export interface SandboxLayout {
  /** Folders replaced by an empty tmpfs: Baton's state folder and its socket folder. */
  hidden: readonly string[];
  /** Folders bound back read-write over a hidden one: the session's worktree and agent state. */
  writable: readonly string[];
  /** Folders bound back read-only: the session's door (its credential and the supervisor's address). */
  readable: readonly string[];
  /** Files read as empty (`/dev/null` bound over them): the user's stored passwords and tokens. */
  emptied?: readonly string[];
}

/** The arguments that run `command args…` inside the sandbox. Order matters: hide first, then bind back. */
export function bubblewrapArgs(layout: SandboxLayout, command: string, args: readonly string[]): string[] {
  return [
    // Everything as it is (devices included: agents run builds and tests)…
    '--dev-bind',
    '/',
    '/',
    // …except the user's: Baton's state folder and sockets are empty here.
    ...layout.hidden.flatMap((path) => ['--tmpfs', path]),
    ...(layout.emptied ?? []).flatMap((path) => ['--ro-bind', '/dev/null', path]),
    ...layout.writable.flatMap((path) => ['--bind', path, path]),
    ...layout.readable.flatMap((path) => ['--ro-bind', path, path]),
    // Its own process tree: /proc shows no supervisor, host or other session to read the environment of.
    '--unshare-pid',
    '--proc',
    '/proc',
    // Root inside keeps no CAP_SYS_ADMIN: it cannot unmount the tmpfs or mount the real folder again.
    '--cap-drop',
    'ALL',
    // …but may map root into a user namespace of its own (kernels ≥ 5.12 want CAP_SETFCAP for
    // that), which Codex's own bubblewrap sandbox needs. Mounts seen from a new user namespace are
    // locked together, so the tmpfs still cannot be lifted; bwrap's no_new_privs and the emptied
    // bounding set keep a file capability from granting anything. An ordinary user needs neither.
    ...(process.getuid?.() === 0 ? ['--cap-add', 'CAP_SETFCAP'] : []),
    // The agent ends with its host, as it did when it was the host's plain child.
    '--die-with-parent',
    '--',
    command,
    ...args,
  ];
}

export type Probe = { ok: true; version: string; path: string } | { ok: false; why: string };

/**
 * The `bwrap` to run, by absolute path: the first on the PATH that is not in a folder of the
 * user's home. An agent may write there (`~/.cargo/bin`, `~/.local/bin` stay writable for its
 * toolchains), and a `bwrap` it planted would run outside any sandbox at the next start.
 */
export function findBubblewrap(env: NodeJS.ProcessEnv): string | undefined {
  const home = env.HOME;
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder === '' || !isAbsolute(folder)) continue;
    if (home !== undefined && home !== '/' && !relative(home, folder).startsWith('..')) continue;
    const path = join(folder, 'bwrap');
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Whether bubblewrap can make the sandbox here: installed, and allowed to create the namespaces
 * (kernels or containers may forbid unprivileged user namespaces). Runs `true` in the real layout's
 * shape, because `bwrap --version` succeeding says nothing about the second.
 */
export function probeBubblewrap(env: NodeJS.ProcessEnv): Probe {
  const bwrap = findBubblewrap(env);
  if (bwrap === undefined)
    return {
      ok: false,
      why: 'bubblewrap (bwrap) is not installed',
    };
  const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 10_000, env });
  if (version.error !== undefined)
    return {
      ok: false,
      why:
        (version.error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'bubblewrap (bwrap) is not installed'
          : `bwrap does not run: ${version.error.message}`,
    };
  const tried = spawnSync(bwrap, bubblewrapArgs({ hidden: [], writable: [], readable: [] }, 'true', []), {
    encoding: 'utf8',
    timeout: 10_000,
    env,
  });
  if (tried.status !== 0)
    return {
      ok: false,
      why: `bwrap cannot create namespaces here: ${(tried.stderr || tried.error?.message || `exit ${tried.status}`).trim()}`,
    };
  return { ok: true, version: version.stdout.trim(), path: bwrap };
}
