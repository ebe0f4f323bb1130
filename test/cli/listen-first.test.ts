/**
 * The supervisor listens before it catches up (decision 169): held by the start's test hook at a
 * step boundary (BATON_STARTUP_HOLD), it already answers its health check and `daemon start`,
 * commands wait at the gate until the API is wired, and a ready message its starter can no
 * longer take is no uncaught error.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, TestBaton } from '../support/baton.js';
import { callApi } from '../support/http.js';
import { waitForFile } from '../support/process.js';

let t: TestBaton | undefined;
afterEach(() => t?.cleanup());

function held(step: string): { baton: TestBaton; release: () => void; log: string } {
  t = new TestBaton();
  const file = join(t.root, `release-${step}`);
  t.env.BATON_STARTUP_HOLD = `${step}=${file}`;
  // The log is there before the supervisor starts, so the test can watch it from the first line.
  mkdirSync(t.home, { mode: 0o700 });
  writeFileSync(join(t.home, 'supervisor.log'), '');
  return { baton: t, release: () => writeFileSync(file, ''), log: join(t.home, 'supervisor.log') };
}

function logged(log: string, message: string): () => boolean {
  return () => existsSync(log) && readFileSync(log, 'utf8').includes(message);
}

describe('a supervisor whose catch-up is held', () => {
  it('answers its health check, `daemon start` and commands before catch-up completes', async () => {
    const { baton, release, log } = held('catch-up');
    const repo = baton.repo();
    // Exits 0 while the catch-up (missed routines, merge recovery) has not even begun.
    const started = await baton.run(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    expect(readFileSync(log, 'utf8')).toContain('start held at a step boundary');
    const health = await callApi(baton.home, 'GET', '/api/health');
    expect(health.body).toMatchObject({ ok: true, phase: 'catching_up' });
    // A command is served meanwhile: the sessions are back, only the catch-up waits.
    await baton.ok(['dispatch', 'x', '--name', 'early', '--script', baton.script([{ say: 'hi' }])], {
      cwd: repo,
    });
    await baton.waitForState('early', 'ready_for_review');
    expect(JSON.parse(await baton.ok(['daemon', 'status', '--json']))).toMatchObject({
      phase: 'catching_up',
    });
    release();
    await waitForFile(log, logged(log, '"caught up"'));
    expect((await callApi(baton.home, 'GET', '/api/health')).body).toMatchObject({ phase: 'ready' });
  });

  it('is started for the CLI as soon as it listens; a command waits at the gate until the API is wired', async () => {
    const { baton, release, log } = held('wiring');
    // `daemon start` returns on the supervisor's own readiness, which comes before the wiring.
    const start = baton.spawn(['daemon', 'start']);
    const startCode = new Promise<number | null>((resolve) => start.once('exit', resolve));
    await waitForFile(log, logged(log, 'start held at a step boundary'));
    expect((await callApi(baton.home, 'GET', '/api/health')).body).toMatchObject({
      ok: true,
      phase: 'starting',
    });
    // A wrong token is refused even now.
    expect((await callApi(baton.home, 'GET', '/api/health', undefined, 'x'.repeat(43))).status).toBe(401);
    // `daemon start` asks for the status, and `ls` for the sessions: both wait at the gate, and are
    // answered once the API is wired (no fixed time gives up on them).
    const ls = baton.spawn(['ls', '--json']);
    const lsCode = new Promise<number | null>((resolve) => ls.once('exit', resolve));
    release();
    expect(await lsCode).toBe(0);
    expect(await startCode).toBe(0);
  });

  it('logs no uncaught error when the command that started it has gone before it is ready', async () => {
    const { baton, release, log } = held('listen');
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'server', 'main.js')], {
      env: baton.env,
      cwd: baton.root,
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    await waitForFile(log, logged(log, 'start held at a step boundary'));
    // The starter leaves (a CLI that gave up), then the supervisor becomes ready.
    child.disconnect();
    child.unref();
    release();
    await waitForFile(log, logged(log, '"caught up"'));
    const text = readFileSync(log, 'utf8');
    expect(text).not.toMatch(/uncaught|ERR_IPC_CHANNEL_CLOSED/);
    // Whether it says so depends on when the channel's close reaches it: before it speaks ("nobody
    // to tell"), as it speaks ("went away"), or after its message was already written (nothing).
    // What must hold is that none of these is an uncaught error, and that it serves.
    expect((await callApi(baton.home, 'GET', '/api/health')).body).toMatchObject({ ok: true });
  });
});
