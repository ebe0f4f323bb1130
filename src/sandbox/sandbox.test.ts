import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../../test/support/wait.js';
import { bubblewrapArgs, findBubblewrap } from './bubblewrap.js';
import { agentEnvironment, agentSandbox, gitFolders, sandboxStatus, type CommandSandbox } from './index.js';
import { groupMembers } from '../shared/process.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-sandbox-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A state folder as Baton lays it out: the token, two sessions with their doors, two worktrees. */
function stateFolder(): { home: string; worktree: string; stateDir: string; door: string } {
  const home = join(root, 'home');
  for (const id of ['own', 'other']) {
    mkdirSync(join(home, 'sessions', id, 'door'), { recursive: true });
    mkdirSync(join(home, 'sessions', id, 'agent'), { recursive: true });
    mkdirSync(join(home, 'worktrees', 'repo', id), { recursive: true });
    writeFileSync(join(home, 'sessions', id, 'door', 'mcp-credential'), `credential of ${id}\n`);
    writeFileSync(join(home, 'worktrees', 'repo', id, 'README.md'), `work of ${id}\n`);
  }
  writeFileSync(join(home, 'token'), 'the user token\n');
  return {
    home,
    worktree: join(home, 'worktrees', 'repo', 'own'),
    stateDir: join(home, 'sessions', 'own', 'agent'),
    door: join(home, 'sessions', 'own', 'door'),
  };
}

function run(sandbox: CommandSandbox, script: string, cwd = root): { stdout: string; status: number | null } {
  const { command, args } = sandbox.wrap('/bin/sh', ['-c', script]);
  const result = spawnSync(command, args, { encoding: 'utf8', cwd });
  return { stdout: result.stdout + result.stderr, status: result.status };
}

describe('the agent sandbox', () => {
  it('hides first, then binds back: the order bubblewrap needs', () => {
    const args = bubblewrapArgs({ hidden: ['/h'], writable: ['/h/w'], readable: ['/h/d'] }, 'claude', ['-p']);
    expect(args.indexOf('--tmpfs')).toBeLessThan(args.indexOf('--bind'));
    expect(args.indexOf('--bind')).toBeLessThan(args.indexOf('--ro-bind'));
    expect(args).toEqual(expect.arrayContaining(['--unshare-pid', '--cap-drop', 'ALL', '--die-with-parent']));
    expect(args.slice(-3)).toEqual(['--', 'claude', '-p']);
  });

  it('keeps BATON_HOME, the port and the switch out of the agent’s environment, and the rest in', () => {
    expect(
      agentEnvironment({
        BATON_HOME: '/h',
        BATON_PORT: '4000',
        BATON_SANDBOX: 'off',
        BATON_SESSION_ID: 's1',
        PATH: '/usr/bin',
        ANTHROPIC_API_KEY: 'k',
      }),
    ).toEqual({ BATON_SESSION_ID: 's1', PATH: '/usr/bin', ANTHROPIC_API_KEY: 'k' });
  });

  it('says plainly when it is turned off, and then runs commands as they are', () => {
    const status = sandboxStatus({ ...process.env, BATON_SANDBOX: 'off' });
    expect(status).toMatchObject({ kind: 'none', detail: 'turned off by BATON_SANDBOX=off' });
    expect(status.summary).toMatch(/^agents are NOT sandboxed: an agent's shell can read Baton's token/);
    expect(agentSandbox(stateFolder(), status).wrap('ls', ['-l'])).toEqual({ command: 'ls', args: ['-l'] });
  });

  // A folder of the user's home on the PATH (~/.cargo/bin) is one an agent can write to.
  it('runs bubblewrap by its absolute path, never one planted in a folder of the user’s home', () => {
    const home = join(root, 'user');
    const planted = join(home, '.cargo', 'bin');
    mkdirSync(planted, { recursive: true });
    writeFileSync(join(planted, 'bwrap'), '#!/bin/sh\necho planted\n', { mode: 0o755 });
    const env = { ...process.env, HOME: home, PATH: `${planted}:${process.env.PATH ?? ''}` };
    expect(findBubblewrap(env)).not.toBe(join(planted, 'bwrap'));
    const status = sandboxStatus(env);
    expect(status.kind, status.detail).toBe('bubblewrap');
    expect(status.path).toMatch(/^\/.*\/bwrap$/);
    expect(agentSandbox(stateFolder(), status).wrap('ls', []).command).toBe(status.path);
    expect(status.path).not.toContain(home);
  });

  it('says why when bubblewrap is not on the PATH', () => {
    const status = sandboxStatus({ PATH: join(root, 'nothing-here') });
    expect(status).toMatchObject({ kind: 'none' });
    expect(status.detail).toMatch(/^bubblewrap \(bwrap\) is not installed; install bubblewrap/);
  });

  // The machine's own sandbox: npm test installs bubblewrap (scripts/bubblewrap.mjs).
  it('shows the agent its worktree, agent state and door, and nothing else of the state folder', () => {
    const places = stateFolder();
    const status = sandboxStatus();
    expect(status.kind, status.detail).toBe('bubblewrap');
    const sandbox = agentSandbox(places, status);
    const seen = run(
      sandbox,
      `cat '${places.home}/token'; cat '${places.home}/sessions/other/door/mcp-credential'; ` +
        `ls '${places.home}/worktrees/repo'; cat README.md; cat '${places.door}/mcp-credential'; ` +
        `echo new > made-here && echo written; echo x > '${places.door}/forged' || echo door-read-only`,
      places.worktree,
    );
    expect(seen.stdout).toContain(`${places.home}/token: No such file or directory`);
    expect(seen.stdout).toContain('other/door/mcp-credential: No such file or directory');
    expect(seen.stdout).not.toContain('the user token');
    expect(seen.stdout).not.toContain('work of other');
    expect(seen.stdout).toContain('work of own');
    expect(seen.stdout).toContain('credential of own');
    expect(seen.stdout).toContain('written');
    expect(seen.stdout).toContain('door-read-only');
  });

  // A session placed on this machine works in a checkout Baton cloned into the state folder.
  it('lets the agent commit in a worktree of a repository cloned into the state folder', () => {
    const places = stateFolder();
    const clone = join(places.home, 'clones', 'shop');
    const git = (cwd: string, ...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
    mkdirSync(clone, { recursive: true });
    git(clone, 'init', '-q', '-b', 'main');
    git(clone, 'commit', '-q', '--allow-empty', '-m', 'init');
    const worktree = join(places.home, 'worktrees', 'shop', 'own');
    git(clone, 'worktree', 'add', '-q', '-b', 'baton/own', worktree);
    expect(gitFolders(worktree)).toEqual([join(clone, '.git'), join(clone, '.git', 'worktrees', 'own')]);

    const seen = run(
      agentSandbox({ ...places, worktree, repository: clone }),
      `echo x > made.txt && git add -A && git -c user.name=a -c user.email=a@a commit -q -m made && echo committed; ` +
        `cat '${places.home}/token'`,
      worktree,
    );
    expect(seen.stdout).toContain('committed');
    expect(seen.stdout).toContain(`${places.home}/token: No such file or directory`);
    expect(git(clone, 'log', '-1', '--format=%s', 'baton/own').trim()).toBe('made');
  });

  // Decision 203: a session's own clone is bound back, never another session's.
  it("binds back only the session's own clone, not another clone a rewritten .git file names", () => {
    const places = stateFolder();
    const git = (cwd: string, ...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
    const clone = (name: string): string => {
      const path = join(places.home, 'clones', name);
      mkdirSync(path, { recursive: true });
      git(path, 'init', '-q', '-b', 'main');
      git(path, 'commit', '-q', '--allow-empty', '-m', 'init');
      return path;
    };
    const mine = clone('shop');
    const theirs = clone('bank');
    writeFileSync(join(theirs, '.git', 'secret'), 'the other clone\n');
    const worktree = join(places.home, 'worktrees', 'shop', 'own');
    git(mine, 'worktree', 'add', '-q', '-b', 'baton/own', worktree);
    git(theirs, 'worktree', 'add', '-q', '-b', 'baton/x', join(places.home, 'worktrees', 'bank', 'x'));
    // The agent points its worktree at the other clone's worktree entry.
    writeFileSync(join(worktree, '.git'), `gitdir: ${join(theirs, '.git', 'worktrees', 'x')}\n`);
    const seen = run(
      agentSandbox({ ...places, worktree, repository: mine }),
      `cat '${join(theirs, '.git', 'secret')}' && echo > '${join(theirs, '.git', 'planted')}'; echo done`,
      worktree,
    );
    expect(seen.stdout).toContain('done');
    expect(seen.stdout).not.toContain('the other clone');
    expect(existsSync(join(theirs, '.git', 'planted'))).toBe(false);
  });

  // The worktree's `.git` file is the agent's to rewrite; the next sandbox (a respawn, a resumed
  // session, the teardown) reads it again. Pointed at the state folder, another session's worktree
  // or the user's home (through a link too), nothing hidden may come back, writable or not.
  it('binds no git folder a rewritten .git file points at the state folder, another worktree or the home', () => {
    const places = stateFolder();
    const userHome = join(root, 'user');
    mkdirSync(join(userHome, '.ssh'), { recursive: true });
    writeFileSync(join(userHome, '.ssh', 'id_ed25519'), 'the user key\n');
    symlinkSync(places.home, join(places.worktree, 'link'));
    const other = join(places.home, 'worktrees', 'repo', 'other');
    const sessions = join(places.home, 'sessions');
    const user = { home: userHome, env: { HOME: userHome } };
    for (const target of [places.home, join(places.worktree, 'link'), other, sessions, userHome]) {
      writeFileSync(join(places.worktree, '.git'), `gitdir: ${target}\n`);
      const seen = run(
        agentSandbox({ ...places, user }),
        `cat '${places.home}/token' '${other}/README.md' '${userHome}/.ssh/id_ed25519'; ` +
          `cat '${sessions}/other/door/mcp-credential'`,
        places.worktree,
      );
      expect(seen.stdout, target).not.toContain('the user token');
      expect(seen.stdout, target).not.toContain('work of other');
      expect(seen.stdout, target).not.toContain('the user key');
      expect(seen.stdout, target).not.toContain('credential of other');
    }
    // commondir is the agent's too (it lies in the writable git folder).
    const own = join(places.home, 'clones', 'shop', '.git', 'worktrees', 'own');
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, 'commondir'), `${places.home}\n`);
    writeFileSync(join(places.worktree, '.git'), `gitdir: ${own}\n`);
    const seen = run(agentSandbox(places), `cat '${places.home}/token'`, places.worktree);
    expect(seen.stdout).not.toContain('the user token');
  });

  it('finds no git folder to add for a plain checkout or a folder outside git', () => {
    expect(gitFolders(stateFolder().worktree)).toEqual([]);
  });

  // bubblewrap dies at a SIGTERM and takes everything inside with it at once: an agent stopped
  // that way never saves its conversation (a resumed claude or codex then miscounts its usage).
  it('lets a command stopped gently finish what it does on SIGTERM', async () => {
    const places = stateFolder();
    const sandbox = agentSandbox(places);
    const saved = join(places.worktree, 'saved');
    const { command, args } = sandbox.wrap('/bin/sh', [
      '-c',
      `trap 'echo saved > "${saved}"; exit 0' TERM; echo ready; sleep 30 & wait`,
    ]);
    const child = spawn(command, args, {
      cwd: places.worktree,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect(sandbox.signalGroup(child.pid!, 'SIGTERM')).toBe(true);
    expect(await exited).toBe(0);
    expect(readFileSync(saved, 'utf8')).toBe('saved\n');
    // The namespace's last process (the backgrounded sleep) goes with bubblewrap, a moment after
    // bubblewrap's own exit is seen: then the group is empty and nothing is left to signal.
    const alive = (): boolean => {
      try {
        process.kill(-child.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    await pollUntil(alive, (up) => !up, "the sandbox's processes to be gone");
    expect(sandbox.signalGroup(child.pid!, 'SIGTERM')).toBe(false);
  });

  // Decision 202: bubblewrap's processes are known by their place in the group, not their name.
  it('stops gently an agent program that named itself bwrap', async () => {
    const places = stateFolder();
    const sandbox = agentSandbox(places);
    const renamed = join(places.worktree, 'bwrap');
    copyFileSync(execFileSync('sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim(), renamed);
    chmodSync(renamed, 0o755);
    const { command, args } = sandbox.wrap('/bin/sh', ['-c', `echo ready; exec '${renamed}' 300`]);
    const child = spawn(command, args, {
      cwd: places.worktree,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    // Once the shell has become the renamed program, every process of the group is named bwrap.
    while (!groupMembers(child.pid!).every((m) => m.name === 'bwrap'))
      await new Promise((resolve) => setImmediate(resolve));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    expect(sandbox.signalGroup(child.pid!, 'SIGTERM')).toBe(true);
    await exited;
  });

  // Decision 176: the user's own account — browsers' cookies, keys, the session bus — is not the agent's.
  it('hides the user’s browser profiles, keys, stored passwords and session bus, and keeps git config and the agent’s login', async () => {
    const places = stateFolder();
    const user = join(root, 'user');
    const runtime = join(root, 'runtime');
    const put = (path: string, text: string): void => {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    };
    put(join(user, '.mozilla/firefox/p.default/cookies.sqlite'), 'firefox cookie');
    put(join(user, '.config/google-chrome/Default/Cookies'), 'chrome cookie');
    put(join(user, '.ssh/id_ed25519'), 'private key');
    put(join(user, '.local/share/keyrings/login.keyring'), 'keyring secret');
    put(join(user, '.config/gh/hosts.yml'), 'gh token');
    put(join(user, '.netrc'), 'machine example.com password hunter2');
    put(join(user, '.gitconfig'), '[user]\n\tname = Dev\n');
    put(join(user, '.claude/.credentials.json'), 'agent login');
    put(join(user, '.codex/auth.json'), 'codex login');
    mkdirSync(runtime, { recursive: true });
    // A live session bus: a listening socket where D-Bus puts it.
    const bus = createServer(() => undefined);
    await new Promise<void>((resolve) => bus.listen(join(runtime, 'bus'), resolve));
    try {
      const sandbox = agentSandbox(
        { ...places, user: { home: user, env: { XDG_RUNTIME_DIR: runtime } } },
        sandboxStatus(),
      );
      const seen = run(
        sandbox,
        `cd '${user}'; for f in .mozilla/firefox/p.default/cookies.sqlite .config/google-chrome/Default/Cookies ` +
          `.ssh/id_ed25519 .local/share/keyrings/login.keyring .config/gh/hosts.yml .netrc .gitconfig ` +
          `.claude/.credentials.json .codex/auth.json; do printf '%s=[%s]\n' "$f" "$(cat "$f" 2>/dev/null)"; done; ` +
          `test -S '${runtime}/bus' && echo bus-reachable || echo no-bus; ` +
          `echo scratch > '${runtime}/scratch' && echo runtime-writable`,
        places.worktree,
      );
      for (const hidden of [
        'firefox cookie',
        'chrome cookie',
        'private key',
        'keyring secret',
        'gh token',
        'hunter2',
        'bus-reachable',
      ])
        expect(seen.stdout).not.toContain(hidden);
      expect(seen.stdout).toContain('.netrc=[]');
      expect(seen.stdout).toContain('.gitconfig=[[user]');
      expect(seen.stdout).toContain('.claude/.credentials.json=[agent login]');
      expect(seen.stdout).toContain('.codex/auth.json=[codex login]');
      expect(seen.stdout).toContain('no-bus');
      expect(seen.stdout).toContain('runtime-writable');
      // Outside, all is as it was: the sandbox hid, it did not delete.
      expect(readFileSync(join(user, '.ssh/id_ed25519'), 'utf8')).toBe('private key');
      expect(readFileSync(join(user, '.netrc'), 'utf8')).toContain('hunter2');
    } finally {
      bus.close();
    }
  });

  it('keeps the session bus, ssh agent and display out of the agent’s environment', () => {
    const kept = agentEnvironment({
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1',
      DISPLAY: ':0',
      HOME: '/home/dev',
    });
    expect(kept).toEqual({ HOME: '/home/dev' });
  });

  it('passes the command’s exit status through', () => {
    const sandbox = agentSandbox(stateFolder());
    expect(run(sandbox, 'exit 7').status).toBe(7);
  });
});
