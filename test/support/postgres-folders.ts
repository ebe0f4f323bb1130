/**
 * Where the test PostgreSQL servers live, and why nobody else can touch them. Everything sits in
 * one folder per user, `<tmp>/baton-pg-<uid>`, owned by the server's user with mode 0700 and
 * checked before every use: the templates (one per PostgreSQL version and test run), the servers
 * (`server-<pid>-*`, pid of the test process that started it) and half-built templates. A folder
 * at a predictable path is only trusted when its owner and mode say that no one else could have
 * made it; anything else is reported and replaced, never reused.
 */
import { execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** The system user that owns the data and runs the server when the tests run as root. */
export interface ServerUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** Why `path` cannot be trusted to hold a server only its owner can reach; undefined if it can. */
export function folderProblem(path: string, uid: number): string | undefined {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return 'it does not exist';
  }
  if (stat.isSymbolicLink()) return 'it is a symbolic link';
  if (!stat.isDirectory()) return 'it is not a folder';
  if (stat.uid !== uid) return `it is owned by uid ${stat.uid}, not ${uid}`;
  if ((stat.mode & 0o077) !== 0) return `its mode is ${(stat.mode & 0o777).toString(8)}, not 700`;
  return undefined;
}

/** The uid that must own every folder: the server's user under root, else ours. */
export function ownerUid(user: ServerUser | undefined): number {
  return user?.uid ?? process.getuid?.() ?? 0;
}

/**
 * This user's private folder, made (0700, owned by the server's user) if missing. One that fails
 * the check is reported and replaced; if it cannot be removed (another user's), this process
 * uses a fresh unguessable folder instead, at the cost of its own template.
 */
export function privateRoot(user: ServerUser | undefined, base = tmpdir()): string {
  const root = join(base, `baton-pg-${process.getuid?.() ?? 'user'}`);
  const uid = ownerUid(user);
  if (!existsSync(root)) placeFolder(root, user);
  const problem = folderProblem(root, uid);
  if (problem === undefined) return root;
  report(`${root} is not used for test PostgreSQL servers: ${problem}. Replacing it.`);
  try {
    rmSync(root, { recursive: true, force: true });
    placeFolder(root, user);
    if (folderProblem(root, uid) === undefined) return root;
  } catch {
    // Another user's folder in a sticky /tmp: leave it, and go around it.
  }
  const fallback = makeFolder(base, `baton-pg-${process.getuid?.() ?? 'user'}-private-`, user);
  report(`${root} could not be replaced; this test process uses ${fallback}.`);
  return fallback;
}

/** A fresh 0700 folder `<root>/<prefix>XXXXXX` owned by the server's user. */
export function makeFolder(root: string, prefix: string, user: ServerUser | undefined): string {
  const dir = mkdtempSync(join(root, prefix));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  return dir;
}

/**
 * The template data folder for this version and run: reused only if it passes the check, else
 * reported, removed and made again with `initdb` into a private folder renamed into place, so
 * two test files racing to make it never see a half-made one.
 */
export function ensureTemplate(
  root: string,
  version: string,
  user: ServerUser | undefined,
  initdb: (data: string) => void,
): string {
  const template = join(root, `template-${version}-${runId()}`);
  if (existsSync(join(template, 'PG_VERSION'))) {
    const problem = folderProblem(template, ownerUid(user));
    if (problem === undefined) return template;
    report(`The test PostgreSQL template ${template} is not reused: ${problem}. Making a new one.`);
    try {
      rmSync(template, { recursive: true, force: true });
    } catch (error) {
      throw new Error(
        `Cannot remove the untrusted test PostgreSQL template ${template} (${error instanceof Error ? error.message : String(error)}); remove it by hand.`,
      );
    }
  }
  const building = makeFolder(root, `building-${process.pid}-`, user);
  const data = join(building, 'data');
  try {
    initdb(data);
    renameSync(data, template);
  } catch (error) {
    // Another file of this run made it first: use theirs.
    if (!existsSync(join(template, 'PG_VERSION'))) throw error;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/** Vitest's main process (the forks pool's workers are its children): one id per test run. */
export function runId(): number {
  return process.env.VITEST_POOL_ID === undefined ? process.pid : process.ppid;
}

/**
 * Clears what dead test processes left in the private folder: each server whose recorded pid is
 * dead is stopped (through `stop`, once its postmaster is confirmed to be that server's postgres)
 * and removed; templates of ended runs and half-built templates go too.
 */
export async function sweepLeftovers(
  root: string,
  stop: (data: string, postmaster: number | undefined) => Promise<void>,
): Promise<string[]> {
  const swept: string[] = [];
  for (const name of readdirSync(root)) {
    const owner = /^(?:server|building)-(\d+)-[^-]+$/.exec(name) ?? /^template-[^-]+-(\d+)$/.exec(name);
    if (owner === null || alive(Number(owner[1]))) continue;
    const dir = join(root, name);
    if (name.startsWith('server-')) await stop(join(dir, 'data'), postmasterOf(join(dir, 'data')));
    rmSync(dir, { recursive: true, force: true });
    swept.push(name);
  }
  return swept;
}

/** The pid in `data`'s postmaster.pid, if that pid is a postgres process serving `data`. */
export function postmasterOf(data: string): number | undefined {
  const pid = recordedPostmaster(data);
  const args = pid === undefined ? undefined : processArgs(pid);
  return args !== undefined && basename(args.split(' ')[0] ?? '') === 'postgres' && args.includes(data)
    ? pid
    : undefined;
}

/** The pid `data`'s postmaster.pid records, unchecked: for a server this process started. */
export function recordedPostmaster(data: string): number | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  return Number.isInteger(pid) && pid > 0 && lines[1] === data ? pid : undefined;
}

/** Running: a zombie (exited, not yet reaped) counts as dead. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return processState(pid) !== 'Z';
}

/** A process's command line, from /proc where there is one, else from ps; undefined if it is gone. */
function processArgs(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return psField(pid, 'args');
  }
}

function processState(pid: number): string | undefined {
  try {
    // The state follows the command name in parentheses, which may itself hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return psField(pid, 'stat')?.slice(0, 1);
  }
}

function psField(pid: number, field: 'args' | 'stat'): string | undefined {
  try {
    return (
      execFileSync('ps', ['-o', `${field}=`, '-p', String(pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

function placeFolder(path: string, user: ServerUser | undefined): void {
  const made = makeFolder(dirname(path), `${basename(path)}-new-`, user);
  try {
    renameSync(made, path);
  } catch (error) {
    rmSync(made, { recursive: true, force: true });
    // Another test process placed it first.
    if (!existsSync(path)) throw error;
  }
}

function report(line: string): void {
  process.stderr.write(`[test postgres] ${line}\n`);
}
