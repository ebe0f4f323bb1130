/**
 * The test's side of the step points in src/shared/test-points.ts: a folder the processes under
 * test write `<name>.reached` to, and `<name>.hold` files that keep them waiting at a point until
 * the test lets go. A test places an interleaving this way (the other writer's step done while one
 * waits), never with a timer.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class TestPoints {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Makes the processes that reach `name` wait there until `release(name)`. */
  hold(name: string): void {
    writeFileSync(join(this.dir, `${name}.hold`), '');
  }

  release(name: string): void {
    rmSync(join(this.dir, `${name}.hold`), { force: true });
  }

  /** Whether any process reached `name` (held there, or marked passing it). */
  reached(name: string): boolean {
    return existsSync(join(this.dir, `${name}.reached`));
  }

  /** Forgets that `name` was reached, so a test can wait for the next time. */
  forget(name: string): void {
    rmSync(join(this.dir, `${name}.reached`), { force: true });
  }

  /** How many times `name` was reached: each process that reaches it adds its pid as a line. */
  reachedCount(name: string): number {
    const file = join(this.dir, `${name}.reached`);
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').length : 0;
  }
}
