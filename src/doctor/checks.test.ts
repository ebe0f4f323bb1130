import { describe, expect, it } from 'vitest';
import {
  agentChecks,
  diskCheck,
  FLOORS,
  limitChecks,
  LOW_DISK_BYTES,
  readLimits,
  sandboxCheck,
  signedIn,
} from './checks.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('the limits a doctor reads', () => {
  it("reads the open-files limit and the kernel's inotify settings", () => {
    const files: Record<string, string> = {
      '/proc/self/limits': LIMITS,
      '/proc/sys/fs/inotify/max_user_instances': '128\n',
      '/proc/sys/fs/inotify/max_user_watches': '8192\n',
    };
    expect(readLimits((p) => files[p])).toEqual({
      openFilesSoft: 1024,
      openFilesHard: 524288,
      inotifyInstances: 128,
      inotifyWatches: 8192,
    });
  });

  it('reads nothing where the machine has no /proc (and checks nothing)', () => {
    expect(
      limitChecks(
        readLimits(() => undefined),
        3,
      ),
    ).toEqual([]);
  });

  it('warns below each floor, with the command that raises it', () => {
    const [files, inotify] = limitChecks(
      { openFilesSoft: 1024, openFilesHard: 524288, inotifyInstances: 128, inotifyWatches: 8192 },
      2,
    );
    expect(files).toMatchObject({
      id: 'limits.open_files',
      status: 'warn',
      fix: expect.stringMatching(/ulimit -n 65536/),
    });
    expect(files?.detail).toMatch(/2 sessions running/);
    expect(inotify).toMatchObject({
      id: 'limits.inotify',
      status: 'warn',
      fix: expect.stringMatching(/sysctl -w fs\.inotify\.max_user_instances=1024/),
    });
  });

  it('stays quiet at and above the floors', () => {
    const checks = limitChecks(
      {
        openFilesSoft: FLOORS.openFiles,
        openFilesHard: FLOORS.openFiles,
        inotifyInstances: FLOORS.inotifyInstances,
        inotifyWatches: FLOORS.inotifyWatches,
      },
      1,
    );
    expect(checks.map((c) => [c.id, c.status, c.fix])).toEqual([
      ['limits.open_files', 'ok', undefined],
      ['limits.inotify', 'ok', undefined],
    ]);
  });
});

describe('whether an agent can reach its vendor', () => {
  const none = (): boolean => false;

  it('takes a key in the environment or a sign-in file', () => {
    expect(signedIn('claude', { ANTHROPIC_API_KEY: 'k' }, none)).toEqual({ how: '$ANTHROPIC_API_KEY' });
    expect(signedIn('claude', { HOME: '/h' }, (p) => p === '/h/.claude/.credentials.json')).toEqual({
      how: '/h/.claude/.credentials.json',
    });
    expect(signedIn('codex', { HOME: '/h', CODEX_HOME: '/c' }, (p) => p === '/c/auth.json')).toEqual({
      how: '/c/auth.json',
    });
    expect(signedIn('codex', { OPENAI_API_KEY: 'k' }, none)).toEqual({ how: '$OPENAI_API_KEY' });
  });

  it('says not signed in when there is neither, and an empty key is no key', () => {
    expect(signedIn('claude', { HOME: '/h', ANTHROPIC_API_KEY: '' }, none)).toBeUndefined();
    expect(signedIn('codex', { HOME: '/h' }, none)).toBeUndefined();
  });

  it('fails only when no real agent is ready, and names the fix for each that is not', () => {
    const ready = agentChecks([
      { agent: 'claude', path: '/bin/claude', signedIn: { how: '$ANTHROPIC_API_KEY' } },
      { agent: 'codex', missing: 'Codex was not found on PATH.', signedIn: undefined },
    ]);
    expect(ready.map((c) => [c.id, c.status])).toEqual([
      ['agent.claude', 'ok'],
      ['agent.codex', 'warn'],
    ]);
    expect(ready[1]?.fix).toMatch(/npm install -g @openai\/codex/);

    const neither = agentChecks([
      { agent: 'claude', path: '/bin/claude', signedIn: undefined },
      { agent: 'codex', missing: 'not found', signedIn: undefined },
    ]);
    expect(neither.map((c) => [c.id, c.status])).toEqual([
      ['agent.claude', 'warn'],
      ['agent.codex', 'warn'],
      ['agents', 'fail'],
    ]);
    expect(neither[0]?.fix).toMatch(/ANTHROPIC_API_KEY/);
  });
});

describe("the worktrees' disk", () => {
  it('names what removing completed sessions frees, and warns when the disk runs low', () => {
    const roomy = diskCheck({
      worktrees: 3,
      ownedBytes: 3 << 20,
      completed: 0,
      completedBytes: 0,
      freeBytes: 1e12,
    });
    expect([roomy.status, roomy.fix]).toEqual(['ok', undefined]);
    const done = diskCheck({
      worktrees: 3,
      ownedBytes: 3 << 20,
      completed: 2,
      completedBytes: 2 << 20,
      freeBytes: 1e12,
    });
    expect(done.detail).toMatch(/2 of completed sessions hold 2\.0 MB/);
    expect(done.fix).toMatch(/baton rm --completed/);
    const low = diskCheck({
      worktrees: 1,
      ownedBytes: 1,
      completed: 0,
      completedBytes: 0,
      freeBytes: LOW_DISK_BYTES - 1,
    });
    expect(low.status).toBe('warn');
  });
});

describe('signed in with a provider of its own', () => {
  it('counts a codex model_provider other than openai in config.toml, and not the openai one', () => {
    const env = { HOME: '/h', CODEX_HOME: '/c' };
    const read = (text: string) => (path: string) => (path === '/c/config.toml' ? text : undefined);
    expect(signedIn('codex', env, () => false, read('model_provider = "gateway"\n'))).toEqual({
      how: 'model_provider "gateway" in /c/config.toml',
    });
    expect(signedIn('codex', env, () => false, read('model_provider = "openai"\n'))).toBeUndefined();
    expect(signedIn('codex', env, () => false, read(''))).toBeUndefined();
  });
});

describe('the sandbox check', () => {
  it('is ok with bubblewrap, and warns with the fix where agents run unsandboxed', () => {
    expect(
      sandboxCheck({ kind: 'bubblewrap', detail: '0.8.0', summary: 'agents cannot reach your token' }),
    ).toEqual({
      id: 'sandbox',
      title: 'Sandbox',
      status: 'ok',
      detail: 'bubblewrap 0.8.0: agents cannot reach your token',
    });
    const none = sandboxCheck({
      kind: 'none',
      detail: 'bwrap not found',
      summary: 'agents run as you (bwrap not found)',
    });
    expect(none).toMatchObject({
      id: 'sandbox',
      status: 'warn',
      detail: 'agents run as you (bwrap not found)',
    });
    expect(none.fix).toMatch(/bubblewrap/);
  });
});
