/**
 * An agent can never act as the user (decision 163): a session whose agent's shell tries every way
 * we know to reach the user's token, Baton's state folder and the API — the token file, the
 * default state folder, /proc of the supervisor and the hosts, supervisor.json for the port,
 * the API without a token or with its own credential for what only the user may do, another
 * session's credential, the hosts' control sockets, unmounting its way out — is refused each time.
 * The same attack run with the sandbox turned off reads the token: the attack is real, and Baton
 * says so where there is no sandbox.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, ROOT, TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const ATTACK = join(ROOT, 'test', 'support', 'attack-user.mjs');
const REPORT = 'attack-report.json';

interface Report {
  env: Record<string, string>;
  files: Record<string, string>;
  visible: string[];
  proc: {
    pids: number[];
    supervisorVisible: boolean;
    supervisorEnviron: string;
    environs: string;
    cmdlines: string;
    throughRoot: string;
  };
  api: Record<string, { status: number; body: string }>;
  sockets: Record<string, string>;
  escapes: Record<string, string>;
}

/**
 * A session waiting on an approval (the victim), then an attacker session whose shell runs the
 * attack with all an attacker could learn; resolves with the attacker's report.
 */
async function attack(baton: TestBaton, dir: string): Promise<{ report: Report; attacker: SessionView }> {
  await baton.ok(['daemon', 'start']);
  const supervisor = JSON.parse(readFileSync(join(baton.home, 'supervisor.json'), 'utf8')) as {
    pid: number;
    port: number;
  };
  const victimScript = baton.script([{ approve: { tool: 'Bash', input: 'rm -rf build' } }, { say: 'done' }]);
  await baton.ok(['dispatch', 'clean the build', '--name', 'victim', '--script', victimScript], { cwd: dir });
  const victim = await baton.waitForState('victim', 'needs_input');
  const script = baton.script([
    {
      run: `node '${ATTACK}' "$PWD/${REPORT}" '${baton.home}' ${supervisor.pid} ${supervisor.port} "$BATON_SESSION_ID" ${victim.id}`,
    },
    { say: 'attack over' },
  ]);
  await baton.ok(['dispatch', 'act as the user', '--name', 'attacker', '--script', script], { cwd: dir });
  const attacker = await baton.waitForState('attacker', 'ready_for_review', 60_000);
  const report = JSON.parse(readFileSync(join(attacker.worktree, REPORT), 'utf8')) as Report;
  return { report, attacker };
}

function started(baton: TestBaton, ref: string): Promise<BatonEvent> {
  return baton.waitForEvent(ref, (e) => e.type === 'session.started');
}

describe('an agent cannot act as the user', () => {
  it('every way from the agent’s shell to the user’s token, state folder and API is refused', async () => {
    const sandbox = await t.ok(['sandbox']);
    expect(sandbox).toMatch(/^Sandbox: bubblewrap \(bubblewrap /);
    const { report, attacker } = await attack(t, repo);
    const token = readFileSync(join(t.home, 'token'), 'utf8').trim();
    const everything = JSON.stringify(report);
    expect(token.length).toBeGreaterThan(20);
    expect(everything).not.toContain(token);

    // Nothing in its environment leads to the state folder or the port.
    expect(Object.keys(report.env).filter((key) => /^BATON_(HOME|PORT|TOKEN)$/.test(key))).toEqual([]);
    // The state folder's files are not there; only its own door, worktree and agent state are.
    for (const name of [
      'token',
      'supervisorJson',
      'database',
      'browserLogins',
      'otherCredential',
      'otherSpec',
      'ownSpec',
    ])
      expect(report.files[name], name).toMatch(/^unreadable: ENOENT/);
    expect(report.files.defaultToken).toMatch(/^unreadable: ENOENT/);
    // Only the session's own worktree, agent state and door, and the folders on the way to them.
    const own = join(t.home, 'sessions', attacker.id);
    const mine = [attacker.worktree, join(own, 'agent'), join(own, 'door')];
    const strays = report.visible.filter(
      (path) =>
        !mine.some((place) => path === place || path.startsWith(place + '/') || place.startsWith(path + '/')),
    );
    expect(strays).toEqual([]);
    expect(report.files.ownCredential).toMatch(new RegExp(`^baton-session\\.${attacker.id}\\.`));

    // No supervisor, host or other session in /proc: nothing to read the environment of.
    expect(report.proc.supervisorVisible).toBe(false);
    expect(report.proc.supervisorEnviron).toMatch(/^unreadable: ENOENT/);
    expect(report.proc.environs).not.toContain('BATON_HOME=');
    expect(report.proc.throughRoot).not.toContain(token);
    expect(report.proc.pids.length).toBeLessThan(10);

    // The API: no way in without the token; its own credential reads, and does nothing the user's does.
    expect(report.api.noToken?.status).toBe(401);
    expect(report.api.guessedToken?.status).toBe(401);
    expect(report.api.ownRead?.status).toBe(200);
    for (const name of [
      'approveOwn',
      'approveOther',
      'addAllowRule',
      'dispatch',
      'merge',
      'stopOther',
      'daemonStop',
    ])
      expect(report.api[name]?.status, `${name}: ${report.api[name]?.body}`).toBe(403);

    // The hosts' control sockets are out of reach; so is every way out of the sandbox.
    expect(report.sockets).toEqual({ own: 'refused: ENOENT', other: 'refused: ENOENT' });
    for (const [name, output] of Object.entries(report.escapes)) expect(output, name).not.toMatch(/exit 0$/);

    // And nothing happened: the victim still waits for the user, no rule was added, no session made.
    expect((await t.waitForState('victim', 'needs_input')).state).toBe('needs_input');
    expect(await t.ok(['policy', 'ls'], { cwd: repo })).not.toContain('rm -rf *');
    expect((await t.json<SessionView[]>(['ls', '--json'])).map((s) => s.name).sort()).toEqual([
      'attacker',
      'victim',
    ]);
    expect(await started(t, 'attacker')).toMatchObject({ sandbox: 'bubblewrap' });
    expect(await t.ok(['logs', 'attacker'])).toMatch(/session\.started .*, sandboxed \(bubblewrap\)/);
  });

  describe('with the sandbox turned off', () => {
    let off: TestBaton | undefined;
    afterEach(() => off?.cleanup());

    it('the same attack reads the token, and Baton says plainly that agents are not sandboxed', async () => {
      off = new TestBaton({ BATON_SANDBOX: 'off' });
      const dir = off.repo();
      expect(await off.ok(['sandbox'])).toMatch(
        /^Sandbox: none: turned off by BATON_SANDBOX=off\nagents are NOT sandboxed: an agent's shell can read Baton's token and act as you/,
      );
      expect(await off.ok(['daemon', 'status'])).toMatch(/Sandbox: {4}none: turned off by BATON_SANDBOX=off/);
      const { report } = await attack(off, dir);
      const token = readFileSync(join(off.home, 'token'), 'utf8').trim();
      expect(report.files.token?.trim()).toBe(token);
      // The variable is still kept from the agent; the folder's place is no secret without a sandbox.
      expect(report.env.BATON_HOME).toBeUndefined();
      expect(await started(off, 'attacker')).toMatchObject({ sandbox: 'none' });
      expect(await off.ok(['logs', 'attacker'])).toMatch(/session\.started .*, not sandboxed/);
    });
  });
});
