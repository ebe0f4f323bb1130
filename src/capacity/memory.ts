/**
 * What the machine has and what a session's processes hold: `MemAvailable` from the kernel's
 * meminfo, and the memory of a process tree (a session's host, its agent and their children),
 * PSS where `/proc/<pid>/smaps_rollup` is readable (shared pages split among their users, so ten
 * hosts do not count node's shared library ten times), else RSS.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

/** Where memory figures come from; tests inject a small machine (decision 260). */
export interface MemorySource {
  /** Megabytes the kernel says can be given to new work without swapping; undefined: unknown here. */
  availableMb(): number | undefined;
  /** Megabytes held by each tree rooted at one of `pids` (the root and all its descendants). */
  treesMb(pids: readonly number[]): Map<number, number>;
}

/** The kernel's figures: `/proc/meminfo` (or the file `meminfo` names, in the same format) and `/proc`. */
export function procMemory(meminfo = '/proc/meminfo', proc = '/proc'): MemorySource {
  return {
    availableMb: () => readAvailableMb(meminfo),
    treesMb: (pids) => treesMb(pids, proc),
  };
}

/** Far past the kernel's meminfo (about 1.5 KB); what lies beyond is not read. */
const MEMINFO_BYTES = 64 * 1024;

export function readAvailableMb(meminfo: string): number | undefined {
  let text: string;
  try {
    // Only a plain file, and only its start: `BATON_MEMINFO` naming a FIFO would block the
    // supervisor's loop for ever, and /dev/zero would be read until memory ran out.
    // (/proc's files report size 0 but are regular and end.)
    const fd = openSync(meminfo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) return undefined;
      const buffer = Buffer.alloc(MEMINFO_BYTES);
      const read = readSync(fd, buffer, 0, MEMINFO_BYTES, 0);
      text = buffer.toString('utf8', 0, read);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const match = /^MemAvailable:\s+(\d+)\s*kB/m.exec(text);
  return match === null ? undefined : Number(match[1]) / 1024;
}

function treesMb(roots: readonly number[], proc: string): Map<number, number> {
  const result = new Map<number, number>();
  if (roots.length === 0) return result;
  const children = childrenOf(proc);
  for (const root of roots) {
    let kb = 0;
    const seen = new Set<number>();
    const stack = [root];
    while (stack.length > 0) {
      const pid = stack.pop()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      const own = processKb(proc, pid);
      if (own === undefined) continue;
      kb += own;
      stack.push(...(children.get(pid) ?? []));
    }
    if (seen.size > 0 && kb > 0) result.set(root, kb / 1024);
  }
  return result;
}

/** Parent → children over every process, from each `/proc/<pid>/stat` (its fourth field). */
function childrenOf(proc: string): Map<number, number[]> {
  const map = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return map;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`${proc}/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone between the listing and the read
    }
    // The command name sits in parentheses and may itself hold spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(fields[1]);
    if (!Number.isInteger(parent)) continue;
    const list = map.get(parent) ?? [];
    list.push(Number(entry));
    map.set(parent, list);
  }
  return map;
}

/** One process's PSS (smaps_rollup), else its RSS (status); undefined when it is gone. */
function processKb(proc: string, pid: number): number | undefined {
  try {
    const rollup = readFileSync(`${proc}/${pid}/smaps_rollup`, 'utf8');
    const pss = /^Pss:\s+(\d+)\s*kB/m.exec(rollup);
    if (pss !== null) return Number(pss[1]);
  } catch {
    // Not readable (another user's process, an older kernel): RSS below.
  }
  try {
    const status = readFileSync(`${proc}/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+)\s*kB/m.exec(status);
    return rss === null ? 0 : Number(rss[1]);
  } catch {
    return undefined;
  }
}
