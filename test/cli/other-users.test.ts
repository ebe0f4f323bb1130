import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { runtimeFolder } from '../../src/shared/paths.js';
import { TestBaton } from '../support/baton.js';
import { Intruder } from '../support/intruder.js';

let t: TestBaton;
let repo: string;
let folder: string;
let intruder: Intruder;

beforeAll(() => {
  intruder = new Intruder();
});
afterAll(() => intruder.cleanup());

describe('another user on the machine', () => {
  beforeEach(() => {
    // A home this deep cannot hold its sockets: they go to the runtime folder (in the temp dir here).
    t = new TestBaton({}, { home: `home-${'d'.repeat(90)}` });
    repo = t.repo();
    folder = runtimeFolder(t.home, t.env);
  });
  afterEach(() => {
    t.cleanup();
    rmSync(folder, { recursive: true, force: true });
  });

  const hold = (): string => t.script([{ ask: 'which way?' }, { say: 'done' }]);

  it('makes the socket folder for a deep home private, and the sessions work through it', async () => {
    const session = await t.json<SessionView>(['dispatch', 'x', '--name', 'deep', '--script', hold()], {
      cwd: repo,
    });
    await t.waitForState('deep', 'needs_input');
    const stat = statSync(folder);
    expect({ uid: stat.uid, mode: (stat.mode & 0o7777).toString(8) }).toEqual({
      uid: process.getuid!(),
      mode: '700',
    });
    expect(readdirSync(folder)).toEqual([`${session.id}.sock`]);
    await t.ok(['reply', 'deep', 'left']);
    await t.waitForState('deep', 'ready_for_review');
  });

  it('refuses a socket folder another user made first, and fails the session saying so', async () => {
    await intruder.listen(join(folder, 'decoy.sock'), '1777');
    await t.ok(['dispatch', 'x', '--name', 'blocked', '--script', hold()], { cwd: repo });
    const failed = await t.waitForState('blocked', 'failed');
    expect(JSON.stringify(failed.reason)).toMatch(
      /Baton will not use .* for its sockets: it belongs to another user \(uid \d+\)\. .*Remove it/,
    );
    expect(readdirSync(folder)).toEqual(['decoy.sock']);
  });

  it.each([
    [
      "another user made it again with their own socket in place of the host's",
      'intruder',
      /it belongs to another user/,
    ],
    [
      'it was made again open to everyone (mode 1777)',
      'self',
      /other users have access to it \(mode 1777, expected 700\)/,
    ],
  ])('sends nothing to a host socket whose folder %s', async (_case, who, problem) => {
    const session = await t.json<SessionView>(['dispatch', 'x', '--name', 'victim', '--script', hold()], {
      cwd: repo,
    });
    await t.waitForState('victim', 'needs_input');
    // A temp-dir cleaner removes the folder under the running host; someone makes it again.
    rmSync(folder, { recursive: true });
    let heard = '';
    if (who === 'intruder') {
      const listener = await intruder.listen(join(folder, `${session.id}.sock`), '755');
      const reply = await t.run(['reply', 'victim', 'my secret answer']);
      heard = listener.all;
      expectRefused(reply, problem);
    } else {
      mkdirSync(folder);
      chmodSync(folder, 0o1777);
      expectRefused(await t.run(['reply', 'victim', 'my secret answer']), problem);
    }
    expect(heard).not.toMatch(/received/);
  });

  it('starts the supervisor although another user holds the lock name it used to take', async () => {
    const abstractName =
      '@baton-supervisor-' + createHash('sha256').update(t.home).digest('hex').slice(0, 24);
    await intruder.listen(abstractName);
    await t.ok(['daemon', 'start']);
    expect(JSON.parse(await t.ok(['daemon', 'status', '--json']))).toMatchObject({
      running: true,
      pid: t.supervisorPid(),
    });
  });
});

function expectRefused(result: { code: number; stdout: string; stderr: string }, problem: RegExp): void {
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^baton: Baton will not use .* for its sockets: /);
  expect(result.stderr).toMatch(problem);
  expect(result.code).toBe(5);
}
