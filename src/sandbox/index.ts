/**
 * The sandbox an agent runs in, so that it can never act as the user (decision 163, "An agent
 * never sees the user's token: agents run in a bubblewrap sandbox, and Baton says where there is
 * none"). The session host runs its agent — the Claude or Codex process, the scripted agent's
 * commands, and everything they start, Baton's MCP server included — with Baton's state folder
 * hidden (the token, the database, every session's folder and control socket, other sessions'
 * worktrees), no other process visible in /proc, and no variable that leads back to the state
 * folder. The agent reaches Baton only through its session's door: a read-only folder holding its
 * own credential and the supervisor's address.
 *
 * Where the machine cannot make the sandbox (no bubblewrap, namespaces forbidden, not Linux) the
 * agent runs as before, and `sandboxStatus` says so in words the user sees (`baton sandbox`,
 * `baton daemon status`, the session's `session.started` event).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { runtimeFolder } from '../shared/paths.js';
import { groupMembers, signalAll } from '../shared/process.js';
import { bubblewrapArgs, probeBubblewrap, type SandboxLayout } from './bubblewrap.js';
import { hiddenUserPlaces, USER_SESSION_VARIABLES, type UserAccount } from './user.js';

export { HIDDEN_USER_FILES, HIDDEN_USER_FOLDERS, hiddenUserPlaces, type UserAccount } from './user.js';

export type SandboxKind = 'bubblewrap' | 'none';

export interface SandboxStatus {
  kind: SandboxKind;
  /** bubblewrap's version, or why there is no sandbox. */
  detail: string;
  /** One sentence for the user: what holds and what does not. */
  summary: string;
  /** The `bwrap` that makes it, by absolute path (findBubblewrap). */
  path?: string | undefined;
}

/** A sandbox for one agent: every process the adapter starts goes through `wrap`. */
export interface CommandSandbox {
  readonly kind: SandboxKind;
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  /**
   * Signals the process group a wrapped command leads (spawned `detached`, so `pid` is the
   * group): the command and what it started, as a plain `kill(-pid)` would. Returns false when
   * the group is gone.
   */
  signalGroup(pid: number, signal: NodeJS.Signals): boolean;
}

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * bubblewrap's own processes (the one we started and the init it makes inside) die at a SIGTERM
 * without passing it on, and take everything inside with them at once (the sandbox's init ends,
 * so the kernel kills its namespace): the agent would never get to save its conversation. So a
 * signal to end gently goes to the agent's processes only, and bubblewrap exits once they have;
 * SIGKILL goes to the whole group.
 */
function signalInside(pid: number, signal: NodeJS.Signals): boolean {
  if (signal === 'SIGKILL') return killGroup(pid, signal);
  const members = groupMembers(pid);
  if (members.length === 0) return killGroup(pid, signal); // no /proc to read: the plain way
  // bubblewrap's own processes are told by where they sit, not by name (an agent can name its
  // program `bwrap` to be passed over, decision 202): the one we started leads the group, and the
  // init it makes inside is pid 1 of the sandbox's namespace; every process of the agent's has
  // another pid there (one nested deeper too, which the agent could make).
  const inside = members.filter((member) => member.pid !== pid && !isSandboxInitOrGone(member, pid));
  signalAll(
    inside.map((member) => member.pid),
    signal,
  );
  return inside.length > 0;
}

/** bubblewrap's init inside the sandbox, or a process already ending: neither takes a gentle stop. */
function isSandboxInitOrGone(member: { pid: number; ppid: number }, leader: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${member.pid}/status`, 'utf8');
  } catch {
    return true; // gone meanwhile
  }
  if (/^State:\s*Z/m.test(status)) return true;
  // Its pid as we see it, then in the sandbox's namespace, then in any nested deeper.
  const line = /^NSpid:\s*(.*)$/m.exec(status)?.[1];
  if (line !== undefined) return line.trim().split(/\s+/)[1] === '1';
  // A kernel without NSpid (before 4.1): the init is the only child of the one we started.
  return member.ppid === leader;
}

/** Turns the sandbox off (`BATON_SANDBOX=off`): for a machine where it breaks an agent, said plainly everywhere. */
export const SANDBOX_VARIABLE = 'BATON_SANDBOX';

const GUARDED =
  "agents run in a bubblewrap sandbox: Baton's state folder (the token, the database, other sessions) is hidden from them and they see no other process";
const UNGUARDED =
  "agents are NOT sandboxed: an agent's shell can read Baton's token and act as you (approve its own requests, add allow rules, dispatch, merge)";

let cached: { key: string; status: SandboxStatus } | undefined;

/** The sandbox this machine gives agents, probed once per process (bwrap is run once, ~25 ms). */
export function sandboxStatus(env: NodeJS.ProcessEnv = process.env): SandboxStatus {
  const key = `${process.platform}:${env[SANDBOX_VARIABLE] ?? ''}:${env.PATH ?? ''}:${env.HOME ?? ''}`;
  if (cached?.key === key) return cached.status;
  const status = probe(env);
  cached = { key, status };
  return status;
}

function probe(env: NodeJS.ProcessEnv): SandboxStatus {
  const none = (why: string): SandboxStatus => ({
    kind: 'none',
    detail: why,
    summary: `${UNGUARDED} (${why})`,
  });
  if (env[SANDBOX_VARIABLE] === 'off') return none(`turned off by ${SANDBOX_VARIABLE}=off`);
  if (process.platform !== 'linux') return none(`no sandbox is built for ${process.platform} yet`);
  const found = probeBubblewrap(env);
  if (!found.ok) return none(`${found.why}; install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)`);
  return { kind: 'bubblewrap', detail: found.version, summary: GUARDED, path: found.path };
}

/** What one session's agent may see of Baton's state folder: its own worktree, agent state and door. */
export interface AgentPlaces {
  home: string;
  worktree: string;
  stateDir: string;
  door: string;
  /** The user's own account: its browser profiles, keys and desktop session are hidden too (decision 176). */
  user?: UserAccount;
  /**
   * The repository the worktree belongs to, from Baton's records (its main checkout): of the
   * clones in the state folder, only its git folder may be bound back (decision 203).
   */
  repository?: string;
}

/** Commands run as they are. */
export const NO_SANDBOX: CommandSandbox = {
  kind: 'none',
  wrap: (command, args) => ({ command, args: [...args] }),
  signalGroup: killGroup,
};

export function agentSandbox(places: AgentPlaces, status: SandboxStatus = sandboxStatus()): CommandSandbox {
  if (status.kind === 'none') return NO_SANDBOX;
  const layout = agentLayout(places);
  return {
    kind: 'bubblewrap',
    wrap: (command, args) => ({
      command: status.path ?? 'bwrap',
      args: bubblewrapArgs(layout, command, args),
    }),
    signalGroup: signalInside,
  };
}

function agentLayout({ home, worktree, stateDir, door, user, repository }: AgentPlaces): SandboxLayout {
  // A long home keeps the hosts' control sockets in a runtime folder outside it: hidden too (an
  // unauthenticated control socket would let the agent approve its own requests).
  const sockets = runtimeFolder(home);
  const mine = user === undefined ? { folders: [], files: [] } : hiddenUserPlaces(user);
  const hidden = [...mine.folders, home, ...(existsSync(sockets) ? [sockets] : [])];
  return {
    // The user's first: Baton's state folder may lie under one of them (the runtime folder).
    hidden,
    emptied: mine.files,
    // The repository's own git folder too: a checkout Baton cloned (a session placed on this
    // machine) lives in the state folder, and without it the agent could not commit.
    writable: [
      worktree,
      stateDir,
      ...gitFolders(worktree).flatMap(
        (folder) => safeGitFolder(folder, home, [...hidden, ...mine.files], repository) ?? [],
      ),
    ].filter((path) => existsSync(path)),
    readable: [door],
  };
}

/** A path as the kernel resolves it (symlinks followed), or undefined when it does not exist. */
function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Whether `inner` is `outer` or lies inside it. */
function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Whether a git folder named by the worktree's `.git` file may be bound back writable. That file
 * and `commondir` lie in places the agent writes, so before its next start (a respawn, a resumed
 * session, the teardown) it can point them anywhere: at the state folder itself (the token), at
 * another session's worktree, at the user's home over its hidden keys. `/` is writable already,
 * so what matters is the hidden: a git folder may neither be nor hold a hidden place, and inside
 * the state folder only a clone's git folder (`<home>/clones/<name>/.git…`) is allowed. Compared
 * after symlinks are resolved, so a link in the worktree cannot stand in for the state folder;
 * the resolved path is what is bound. Returns it, or undefined when the folder is refused.
 */
function safeGitFolder(
  folder: string,
  home: string,
  hidden: readonly string[],
  repository: string | undefined,
): string | undefined {
  const path = real(folder);
  if (path === undefined) return undefined;
  const realHome = real(home) ?? home;
  for (const place of hidden) {
    const placeReal = real(place) ?? place;
    if (within(placeReal, path)) return undefined; // binding it would bring the hidden place back
    if (!within(path, placeReal)) continue;
    if (placeReal !== realHome) return undefined;
    const parts = relative(join(realHome, 'clones'), path).split(sep);
    if (parts[0] === '..' || parts.length < 2 || parts[0] === '' || parts[1] !== '.git') return undefined;
    // Another session's clone is not this one's: only the recorded repository's (decision 203).
    const own = repository === undefined ? undefined : real(join(repository, '.git'));
    if (own === undefined || !within(path, own)) return undefined;
  }
  return path;
}

/**
 * The git folders a linked worktree writes to when it commits: its own (`.git/worktrees/<name>`)
 * and the repository's shared one (objects, refs). Read from the worktree's `.git` file and the
 * `commondir` beside it, as git reads them; nothing for a worktree that is a plain checkout.
 */
export function gitFolders(worktree: string): string[] {
  let pointer: string;
  try {
    pointer = readFileSync(join(worktree, '.git'), 'utf8');
  } catch {
    return []; // a folder `.git` (a plain checkout: already bound with the worktree), or none
  }
  const match = /^gitdir: (.+)$/m.exec(pointer);
  if (match === null) return [];
  const own = resolve(worktree, match[1]!.trim());
  let common = own;
  try {
    const relative = readFileSync(join(own, 'commondir'), 'utf8').trim();
    common = isAbsolute(relative) ? relative : resolve(own, relative);
  } catch {
    // no commondir: a submodule's or separate git folder, which is the whole repository
  }
  return common === own ? [own] : [common, own];
}

/**
 * Variables that lead an agent to the user's authority: the state folder (and with it the token),
 * the supervisor's port, the user's desktop session and agents (decision 176). The agent's MCP
 * server finds the supervisor through its door instead.
 */
const USER_ONLY = ['BATON_HOME', 'BATON_PORT', 'BATON_TOKEN', SANDBOX_VARIABLE, ...USER_SESSION_VARIABLES];

/** The session's environment as the agent gets it. */
export function agentEnvironment(env: Record<string, string>): Record<string, string> {
  const kept = { ...env };
  for (const key of USER_ONLY) delete kept[key];
  return kept;
}
