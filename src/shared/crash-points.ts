/**
 * Fault injection for crash tests (decision 166): `BATON_TEST_CRASH_AT=<point>` (or
 * `<point>#<n>`, the n-th time it is reached) makes this process kill itself with SIGKILL at a
 * named step boundary — a kill -9 at an exact place in an operation, where a timer could only
 * land near one. `BATON_TEST_CRASH_FILE=<file>` arms a running process instead: the file holds
 * `<point>[#<n>] <pid>`, read at each point, and only the process with that pid dies (the soak
 * arms the supervisor it has, without a restart per kill: decision 175). Unset (always, outside
 * tests) it costs a lookup of the environment.
 */
import { readFileSync } from 'node:fs';

const reached = new Map<string, number>();

export function crashPoint(point: string): void {
  const wanted = process.env.BATON_TEST_CRASH_AT || armedByFile();
  if (wanted === undefined || wanted === '') return;
  const [name, nth = '1'] = wanted.split('#');
  if (name !== point) return;
  const count = (reached.get(point) ?? 0) + 1;
  reached.set(point, count);
  if (count === Number(nth)) process.kill(process.pid, 'SIGKILL');
}

/** The point the crash file names for this process, if any. */
function armedByFile(): string | undefined {
  const file = process.env.BATON_TEST_CRASH_FILE;
  if (file === undefined || file === '') return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // not armed
  }
  const [point, pid] = text.trim().split(/\s+/);
  return pid === undefined || Number(pid) === process.pid ? point : undefined;
}
