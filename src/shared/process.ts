import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether a process exists (EPERM: it does, run by someone else). A zombie — killed, not yet
 * reaped by its parent, which for a detached supervisor may take a while or never happen —
 * holds no port and no socket any more: it counts as gone, or whatever took its port would be
 * taken for it.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // The state follows the command name in parentheses, which may itself hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) === 'Z';
  } catch {
    return false;
  }
}

/**
 * Every process below `pid` (children, their children, …), read from /proc; empty where there
 * is no /proc. Finds what left `pid`'s process group (setsid, sandboxes) but is still its offspring.
 */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    const child = Number(name);
    if (!Number.isInteger(child)) continue;
    try {
      // The command name (field 2) may hold spaces and parentheses: the ppid follows its last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), child]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0;) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/**
 * The processes of process group `pgid` with their command names, read from /proc (empty where
 * there is none): to signal a group but some of its members.
 */
export function groupMembers(pgid: number): { pid: number; name: string; ppid: number }[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: { pid: number; name: string; ppid: number }[] = [];
  for (const entry of names) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      // pid (comm) state ppid pgrp …: the name may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid)
        members.push({
          pid,
          name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
          ppid: Number(fields[1]),
        });
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/** Sends `signal` to each pid, ignoring those already gone. */
export function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
