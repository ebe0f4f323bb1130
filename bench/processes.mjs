// Ending what a bench section started, before its folder is removed: a supervisor sent SIGTERM
// goes on writing its log and database while it shuts down, and removing the folder under it
// fails (ENOTEMPTY) and fails the section after its figures were printed.
import { readFileSync } from 'node:fs';

const PROC = process.platform === 'linux';

/**
 * When `pid` started (clock ticks since boot, from /proc), so a pid the system gave to another
 * process after ours ended is told apart; undefined when no process has it or it is a zombie (it
 * has ended; only its parent's reaping is left, and in a container nobody may reap it). Off Linux,
 * 'unknown' while the pid answers a signal.
 */
export function processStart(pid) {
  if (!PROC) return isAlive(pid) ? 'unknown' : undefined;
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command's name (field 2) is in parentheses and may hold spaces: count after its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[19];
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM, then waits for the process to exit; SIGKILL after `graceMs`, and waits again. `started`
 * (processStart when the pid was learned) names the process: one that ended and whose pid another
 * took is not signalled.
 */
export async function endProcess(pid, graceMs = 10_000, started = processStart(pid)) {
  const ours = () => started !== undefined && processStart(pid) === started;
  for (const signal of ['SIGTERM', 'SIGKILL']) {
    if (!ours()) return;
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const until = Date.now() + graceMs;
    while (ours() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
