/**
 * A wall clock that jumps, for the processes of one test only: Debian's libfaketime, preloaded,
 * reads the offset from a file on every call, so the test moves the clock of a running
 * supervisor, its hosts and the CLI at once, without touching the machine's. The monotonic
 * clock is left real (FAKETIME_DONT_FAKE_MONOTONIC): what a jump must not disturb.
 * `npm test` installs the library when it can (scripts/faketime.mjs).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LIBRARIES = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1', '/usr/lib/faketime/libfaketimeMT.so.1'];

export function findFaketime(): string {
  const found = LIBRARIES.find((path) => existsSync(path));
  if (found === undefined) throw new Error(`libfaketime is not installed (looked for ${LIBRARIES.join(', ')}); run: apt-get install faketime (npm test does it as root)`);
  return found;
}

export class FakeClock {
  readonly file: string;

  constructor(dir: string) {
    this.file = join(dir, 'faketime');
    this.set(0);
  }

  /** The variables that put a process on this clock. */
  env(): NodeJS.ProcessEnv {
    return { LD_PRELOAD: findFaketime(), FAKETIME_TIMESTAMP_FILE: this.file, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' };
  }

  /** Every process on this clock now reads the real time plus `seconds` (negative: the past). */
  set(seconds: number): void {
    writeFileSync(this.file, `${seconds >= 0 ? '+' : ''}${seconds}\n`);
  }
}
