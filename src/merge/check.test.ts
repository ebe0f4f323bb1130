import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchExit } from '../../test/support/process.js';
import { describeCheck, runCheck, tail } from './check.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-check-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the merge check', () => {
  it('passes on exit 0, running an argument list directly in the given folder', async () => {
    const result = await runCheck(['sh', '-c', 'pwd; echo "$1"', 'sh', 'a b; rm -rf x'], {
      cwd: dir,
      timeoutSeconds: 30,
    });
    expect(result.outcome).toBe('passed');
    expect(result.exitCode).toBe(0);
    expect(result.outputTail).toBe(`${dir}\na b; rm -rf x`);
  });

  it('runs a string with sh -c, as package.json scripts are, and keeps the end of the output of a failure', async () => {
    const result = await runCheck('for i in $(seq 1 100); do echo line $i; done; echo broken >&2; exit 3', {
      cwd: dir,
      timeoutSeconds: 30,
    });
    expect(result.outcome).toBe('failed');
    expect(result.exitCode).toBe(3);
    const lines = result.outputTail.split('\n');
    expect(lines).toHaveLength(40);
    expect(lines.at(-1)).toBe('broken');
    expect(lines[0]).toBe('line 62');
  });

  it('stops a hanging check and everything it started at the time limit', async () => {
    const pidFile = join(dir, 'child.pid');
    const result = await runCheck(`sleep 300 & echo $! > ${pidFile}; echo started; wait`, {
      cwd: dir,
      timeoutSeconds: 1,
    });
    expect(result.outcome).toBe('timed_out');
    expect(result.durationMs).toBeGreaterThanOrEqual(1000);
    expect(result.durationMs).toBeLessThan(10_000);
    expect(result.outputTail).toBe('started');
    // Killed by then; on a loaded machine the kernel may take a moment to finish it off.
    await watchExit(Number(readFileSync(pidFile, 'utf8')), 3000);
  });

  it('does not wait for a background process a passing check left behind, and stops it', async () => {
    const pidFile = join(dir, 'straggler.pid');
    const result = await runCheck(`sleep 300 > /dev/null 2>&1 & echo $! > ${pidFile}; exit 0`, {
      cwd: dir,
      timeoutSeconds: 30,
    });
    expect(result.outcome).toBe('passed');
    expect(result.durationMs).toBeLessThan(10_000);
    await watchExit(Number(readFileSync(pidFile, 'utf8')), 3000);
  });

  it('ends with the check even when a process it started left its group and holds its output open', async () => {
    const pidFile = join(dir, 'escaped.pid');
    // setsid: out of the check's process group, so killing the group cannot reach it; it keeps
    // the check's stdout open.
    const result = await runCheck(
      `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 300' & echo checked; exit 0`,
      {
        cwd: dir,
        timeoutSeconds: 30,
      },
    );
    try {
      expect(result.outcome).toBe('passed');
      expect(result.outputTail).toBe('checked');
    } finally {
      for (let i = 0; i < 100 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 20));
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  });

  it('fails plainly when the command does not exist', async () => {
    const result = await runCheck(['baton-no-such-command-xyz'], { cwd: dir, timeoutSeconds: 30 });
    expect(result.outcome).toBe('failed');
    expect(result.outputTail).toMatch(/ENOENT/);
    expect(existsSync(dir)).toBe(true);
  });

  it('describes an argument list readably and cuts a long tail', () => {
    expect(describeCheck(['npm', 'run', 'test', '--', 'a b'])).toBe('npm run test -- "a b"');
    expect(tail('x'.repeat(5000))).toHaveLength(4001);
  });
});
