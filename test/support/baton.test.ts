/**
 * The harness's cleanup kills by pid, and the pids it reads from supervisor.json and host.json
 * may be long dead and their numbers another process's by now: only what is still this test's
 * is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestBaton } from './baton.js';

/** A `sleep` standing for some other process on the machine, or for one of the test's own. */
function sleeper(env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn('sleep', ['600'], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
}

/** How `child` ended once told SIGTERM: `SIGKILL` when something killed it before. */
async function endOf(child: ChildProcess): Promise<NodeJS.Signals | null> {
  const ended = new Promise<NodeJS.Signals | null>((done) =>
    child.once('exit', (_code, signal) => done(signal)),
  );
  child.kill('SIGTERM');
  return ended;
}

describe('TestBaton.cleanup', () => {
  it("leaves alone a process whose pid the home's files name but which is not the test's", async () => {
    const t = new TestBaton();
    const stranger = sleeper();
    const pid = stranger.pid!;
    mkdirSync(join(t.home, 'sessions', 's1'), { recursive: true });
    writeFileSync(join(t.home, 'supervisor.json'), JSON.stringify({ pid }));
    writeFileSync(join(t.home, 'sessions', 's1', 'host.json'), JSON.stringify({ pid }));
    t.cleanup();
    expect(await endOf(stranger)).toBe('SIGTERM');
  });

  it("still kills the test's own: a process with its home, one named by host.json with the home as argument", async () => {
    const t = new TestBaton();
    const own = sleeper({ BATON_HOME: t.home });
    // A host is started with the home as its argument.
    const host = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', t.home], {
      env: { PATH: process.env.PATH },
      stdio: 'ignore',
    });
    mkdirSync(join(t.home, 'sessions', 's1'), { recursive: true });
    writeFileSync(join(t.home, 'sessions', 's1', 'host.json'), JSON.stringify({ pid: host.pid }));
    t.cleanup();
    expect(await endOf(own)).toBe('SIGKILL');
    expect(await endOf(host)).toBe('SIGKILL');
  });
});
