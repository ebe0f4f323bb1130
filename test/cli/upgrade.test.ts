/**
 * An upgrade of Baton itself while sessions run (decision 169): a second copy of the build with a
 * newer version is installed beside the running one; its first command replaces the older
 * supervisor, which leaves the hosts running, and the newer one re-attaches them. The sessions
 * work on through it and lose nothing: every event once, in order, and each turn ends.
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, TestBaton, type CliResult } from '../support/baton.js';

let t: TestBaton;
beforeEach(() => {
  t = new TestBaton();
});
afterEach(() => t.cleanup());

/** A copy of the build (bin, dist, package.json) with its version raised; node_modules shared. */
function newerBuild(): { bin: string; version: string } {
  const dir = join(t.root, 'newer');
  mkdirSync(dir);
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const [major, minor, patch] = pkg.version.split('.').map(Number);
  const version = `${major}.${minor}.${(patch ?? 0) + 1}`;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version }));
  return { bin: join(dir, 'bin', 'baton'), version };
}

function runWith(bin: string, args: string[], cwd: string): Promise<CliResult> {
  return new Promise((done) =>
    execFile(process.execPath, [bin, ...args], { cwd, env: t.env }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    ),
  );
}

describe('an upgrade of Baton while sessions work', () => {
  it('the newer supervisor takes over and re-attaches the old hosts; nothing is lost', async () => {
    const repo = t.repo();
    // A session mid-turn across the upgrade: it waits for a file the test writes after it.
    const gate = join(t.root, 'go-on');
    await t.ok(
      [
        'dispatch',
        'x',
        '--name',
        'across',
        '--script',
        t.script([
          { say: 'before the upgrade' },
          { run: ['sh', '-c', `while [ ! -e '${gate}' ]; do sleep 0.05; done`] },
          { say: 'after the upgrade' },
        ]),
      ],
      { cwd: repo },
    );
    // The resting session is dispatched while the first starts its turn (both before the upgrade).
    await Promise.all([
      t.waitForEvent('across', (e) => e.type === 'message.added' && e.text === 'before the upgrade'),
      t
        .ok(['dispatch', 'x', '--name', 'resting', '--script', t.script([{ say: 'done' }])], { cwd: repo })
        .then(() => t.waitForState('resting', 'ready_for_review')),
    ]);
    const before = JSON.parse(await t.ok(['daemon', 'status', '--json'])) as { pid: number; version: string };
    const hosts = t.hostPids().sort();

    const newer = newerBuild();
    const listed = await runWith(newer.bin, ['ls'], repo);
    expect(listed.code, listed.stderr).toBe(0);
    const after = JSON.parse(await t.ok(['daemon', 'status', '--json'])) as { pid: number; version: string };
    expect(after.version).toBe(newer.version);
    expect(after.pid).not.toBe(before.pid);
    // The same hosts, re-attached, not restarted.
    expect(t.hostPids().sort()).toEqual(hosts);

    writeFileSync(gate, '');
    await t.waitForState('across', 'ready_for_review');
    const { events } = await t
      .client()
      .call('GET /api/sessions/:ref/events', { params: { ref: 'across' }, query: { after: 0 } });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const said = events.flatMap((e) => (e.type === 'message.added' ? [e.text] : []));
    expect(said.filter((text) => text === 'before the upgrade')).toHaveLength(1);
    expect(said.filter((text) => text === 'after the upgrade')).toHaveLength(1);
    expect(
      (await t.client().call('GET /api/sessions/:ref', { params: { ref: 'resting' } })).session.state,
    ).toBe('ready_for_review');
    // An older CLI leaves the newer supervisor be.
    await t.ok(['ls'], { cwd: repo });
    expect((JSON.parse(await t.ok(['daemon', 'status', '--json'])) as { pid: number }).pid).toBe(after.pid);
  });
});
