/**
 * Fault injection for crash tests (decision 166): `BATON_TEST_CRASH_AT=<point>` (or
 * `<point>#<n>`, the n-th time it is reached) makes this process kill itself with SIGKILL at a
 * named step boundary — a kill -9 at an exact place in an operation, where a timer could only
 * land near one. Unset (always, outside tests) it costs a string comparison.
 */

const reached = new Map<string, number>();

export function crashPoint(point: string): void {
  const wanted = process.env.BATON_TEST_CRASH_AT;
  if (wanted === undefined || wanted === '') return;
  const [name, nth = '1'] = wanted.split('#');
  if (name !== point) return;
  const count = (reached.get(point) ?? 0) + 1;
  reached.set(point, count);
  if (count === Number(nth)) process.kill(process.pid, 'SIGKILL');
}
