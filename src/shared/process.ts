import { readFileSync } from 'node:fs';
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
