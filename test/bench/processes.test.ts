/**
 * How a bench section ends what it started (bench/processes.mjs): a process that ignores SIGTERM
 * is killed after the grace, a pid another process took is left alone, and a zombie (ended, not
 * yet reaped) counts as gone rather than holding the section for two graces.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { endProcess, processStart } from '../../bench/processes.mjs';
import { until } from '../support/wait.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A child that prints one line once it is ready, so the test waits on it rather than on a timer. */
async function child(command: string, args: string[]): Promise<{ child: ChildProcess; line: string }> {
  const c = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(c);
  const [chunk] = (await once(c.stdout, 'data')) as [Buffer];
  return { child: c, line: chunk.toString().trim() };
}

describe('endProcess', () => {
  it('kills a process that ignores SIGTERM once the grace is over', async () => {
    const { child: c } = await child(process.execPath, [
      '-e',
      "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000);",
    ]);
    const exited = once(c, 'exit');
    await endProcess(c.pid!, 300);
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
  });

  it('leaves alone a process that took the pid of the one it was to end', async () => {
    const { child: c } = await child(process.execPath, [
      '-e',
      "console.log('ready'); setInterval(() => {}, 1000);",
    ]);
    const own = processStart(c.pid!);
    expect(own).toBeDefined();
    // The start recorded for the pid is not this process's: the one it named has ended.
    await endProcess(c.pid!, 300, `${own}0`);
    expect(c.exitCode).toBeNull();
    expect(c.signalCode).toBeNull();
    expect(processStart(c.pid!)).toBe(own);
  });

  it('counts a zombie as gone', { timeout: 20_000 }, async () => {
    // The shell starts `true` in the background and becomes `sleep`, which never reaps it.
    const { line } = await child('sh', ['-c', 'true & echo $!; exec sleep 60']);
    const zombie = Number(line);
    // Ended: it answers signals still, but has no start of its own.
    await until(() => processStart(zombie) === undefined, 'the background process to end');
    await endProcess(zombie, 30_000);
  });
});
