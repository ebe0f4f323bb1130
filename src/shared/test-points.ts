/**
 * Interleavings for race tests, as crash-points.ts places kills: `BATON_TEST_POINTS=<folder>`
 * names a folder the test owns. At `pausePoint(name)` the process writes `<name>.reached` there
 * and, while `<name>.hold` exists (the test made it beforehand), waits: the test does the other
 * writer's step meanwhile, then deletes the hold file. `markPoint(name)` only writes the
 * `.reached` file, so a test learns that a step was reached (a command queued behind another on
 * its session) without a timer. Unset (always, outside tests) each costs a lookup of the
 * environment.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function folder(): string | undefined {
  const dir = process.env.BATON_TEST_POINTS;
  return dir === undefined || dir === '' ? undefined : dir;
}

/** Says that `name` was reached (its `.reached` file), when a test asked for points. */
export function markPoint(name: string): void {
  const dir = folder();
  if (dir === undefined) return;
  try {
    writeFileSync(join(dir, `${name}.reached`), `${process.pid}\n`, { flag: 'a' });
  } catch {
    // The test's folder is gone: nothing waits on the mark.
  }
}

/** Marks `name` and waits while the test holds it (its `.hold` file exists). */
export async function pausePoint(name: string): Promise<void> {
  const dir = folder();
  if (dir === undefined) return;
  const hold = join(dir, `${name}.hold`);
  if (!existsSync(hold)) return;
  markPoint(name);
  while (existsSync(hold)) await sleep(20);
}
