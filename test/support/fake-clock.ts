/**
 * A wall clock that jumps, for the processes of one test only: Debian's libfaketime, preloaded,
 * reads the offset from a file on every call, so the test moves the clock of a running
 * supervisor, its hosts and the CLI at once, without touching the machine's. The monotonic
 * clock is left real (FAKETIME_DONT_FAKE_MONOTONIC): what a jump must not disturb.
 * `npm test` installs the library when it can (scripts/faketime.mjs).
 *
 * libfaketime shares state through a POSIX semaphore and shared memory that the first process
 * creates, names in FAKETIME_SHARED for its children, and removes when it exits: a CLI that
 * started the supervisor would take them away from everything the supervisor starts later (git
 * then fails with "sem_open failed"), and a process killed -9 leaves them in /dev/shm. So one
 * holder process, started here, owns them for the test, and `stop` removes them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { TestBaton } from './baton.js';

const LIBRARIES = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/faketime/libfaketimeMT.so.1',
];

export function findFaketime(): string {
  const found = LIBRARIES.find((path) => existsSync(path));
  if (found === undefined)
    throw new Error(
      `libfaketime is not installed (looked for ${LIBRARIES.join(', ')}); run: apt-get install faketime (npm test does it as root)`,
    );
  return found;
}

export class FakeClock {
  private constructor(
    readonly file: string,
    private readonly holder: ChildProcess,
  ) {}

  static async start(dir: string): Promise<FakeClock> {
    const file = join(dir, 'faketime');
    writeFileSync(file, '+0\n');
    const base = {
      LD_PRELOAD: findFaketime(),
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    };
    // The library made its semaphore and memory before Node ran a line: "ready" means they exist.
    const holder = spawn(
      process.execPath,
      ['-e', 'process.stdout.write("ready"); setInterval(() => {}, 1 << 30)'],
      { env: { ...process.env, ...base }, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await once(holder.stdout, 'data');
    return new FakeClock(file, holder);
  }

  /** The variables that put a process on this clock. */
  env(): NodeJS.ProcessEnv {
    const pid = this.holder.pid!;
    return {
      LD_PRELOAD: findFaketime(),
      FAKETIME_TIMESTAMP_FILE: this.file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      FAKETIME_SHARED: `/faketime_sem_${pid} /faketime_shm_${pid}`,
    };
  }

  /** Every process on this clock now reads the real time plus `seconds` (negative: the past). */
  set(seconds: number): void {
    writeFileSync(this.file, `${seconds >= 0 ? '+' : ''}${seconds}\n`);
  }

  /** Ends the holder and removes what it made (killed, it cannot clean up after itself). */
  stop(): void {
    const pid = this.holder.pid!;
    this.holder.kill('SIGKILL');
    rmSync(`/dev/shm/faketime_shm_${pid}`, { force: true });
    rmSync(`/dev/shm/sem.faketime_sem_${pid}`, { force: true });
  }
}

/**
 * Each test gets its own Baton (with `env`), a libfaketime clock its processes run on, and a
 * repository; the Baton and the clock are stopped after it.
 */
export function eachTestOnFakeClock(
  env: NodeJS.ProcessEnv,
  use: (baton: TestBaton, clock: FakeClock, repo: string) => void,
): void {
  let current: { baton: TestBaton; clock: FakeClock } | undefined;
  beforeEach(async () => {
    const baton = new TestBaton(env);
    const clock = await FakeClock.start(baton.root);
    Object.assign(baton.env, clock.env());
    current = { baton, clock };
    use(baton, clock, baton.repo());
  });
  afterEach(() => {
    current?.baton.cleanup();
    current?.clock.stop();
  });
}
