/**
 * No process left behind: every process a test run starts carries the run's mark in its
 * environment (BATON_TEST_RUN, handed down from the supervisor to hosts and agents), so the run's
 * end can find any still running, name them, end them, and fail (vitest's globalSetup teardown).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RUN_MARK = 'BATON_TEST_RUN';

/** Processes (other than this one) whose environment holds `entry` exactly, with their command lines. */
export function processesMarked(entry: string): { pid: number; cmdline: string }[] {
  if (!existsSync('/proc/self/environ')) return [];
  const found: { pid: number; cmdline: string }[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // A zombie has ended; its parent has only not reaped it yet.
      if (/\) Z /.test(stat)) continue;
      // vitest's own workers (this process's children) may still be closing: the tests' processes
      // are their children, or detached and taken over by init, never ours.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) continue;
      found.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** vitest globalSetup: marks the run, and at its end fails naming any process the run left behind. */
export default function setup(): () => void {
  const mark = process.env[RUN_MARK] ?? randomUUID();
  process.env[RUN_MARK] = mark;
  return () => {
    // The tests' CODEX_HOMEs (test/support/model-server/env.ts), kept out of /tmp.
    rmSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.baton-test-codex'), {
      recursive: true,
      force: true,
    });
    const left = processesMarked(`${RUN_MARK}=${mark}`);
    for (const { pid } of left)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    if (left.length === 0) return;
    // vitest reports a teardown's error but keeps its exit status: the run fails here.
    process.exitCode = 1;
    throw new Error(
      `The tests left ${left.length} process(es) behind (now killed):\n${left.map((p) => `  ${p.pid} ${p.cmdline}`).join('\n')}`,
    );
  };
}
