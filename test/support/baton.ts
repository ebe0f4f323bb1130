/**
 * Test harness: a temporary BATON_HOME and git repositories, the real `baton` binary, and waits
 * on the supervisor's event stream. Everything started is stopped by its own pid at cleanup.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { BatonEvent, SessionState } from '../../src/events/index.js';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { SupervisorClient } from '../../src/cli/client.js';
import { commandDigest, isTrusted, loadRepoConfig, trustDigest } from '../../src/projects/index.js';
import { descendantsOf } from '../../src/shared/process.js';
import { TestPoints } from './points.js';

/** Each test gets its own Baton home and repository, and everything it started is stopped after it. */
export function eachTest(use: (baton: TestBaton, repo: string) => void): void {
  let current: TestBaton | undefined;
  beforeEach(() => {
    current = new TestBaton();
    use(current, current.repo());
  });
  afterEach(() => current?.cleanup());
}

/**
 * The tests of a block share one Baton home, and so one supervisor, each test with a repository
 * of its own (`repo-1`, `repo-2`, …); everything is stopped after the block. For tests that leave
 * the home as they found it — input refused before anything is made — and for tests that make
 * sessions under names no other test of the block uses and read only their own (`ls --here`),
 * where a supervisor per test would cost its start (~1 s of CPU each) and prove nothing more
 * (decisions 422 and 433). A test that counts on the home's numbering (task numbers), writes the
 * home's config or token, or starts, stops or breaks the supervisor keeps `eachTest`.
 * `make`: the home, for one made with more environment (real agents' own home, say).
 */
export function sharedHome(
  use: (baton: TestBaton, repo: string) => void,
  make: () => TestBaton = () => new TestBaton(),
): void {
  let shared: TestBaton | undefined;
  let count = 0;
  beforeAll(() => {
    shared = make();
  });
  beforeEach(() => {
    if (shared === undefined) throw new Error('the shared Baton home is not set up');
    count += 1;
    use(shared, shared.repo(`repo-${count}`));
  });
  afterAll(() => shared?.cleanup());
}

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'bin', 'baton');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class TestBaton {
  readonly root: string;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly children: ChildProcess[] = [];
  private readonly repos: string[] = [];
  /**
   * The repositories' `.baton/config.json` commands are trusted before each command and request,
   * as the user would with \`baton trust\` (decision 161), so tests of other features need not.
   * Tests of trust itself turn this off.
   */
  trustConfigs = true;

  /** `options.home`: BATON_HOME's path below the test's folder (a deep one, say). */
  constructor(extraEnv: NodeJS.ProcessEnv = {}, options: { home?: string } = {}) {
    // realpath: macOS-style /tmp symlinks would otherwise make paths compare unequal.
    this.root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-test-')));
    this.home = join(this.root, options.home ?? 'home');
    const fakeHome = join(this.root, 'user');
    mkdirSync(fakeHome);
    this.env = {
      PATH: process.env.PATH,
      HOME: fakeHome,
      BATON_HOME: this.home,
      GIT_CONFIG_GLOBAL: join(fakeHome, '.gitconfig'),
      GIT_CONFIG_NOSYSTEM: '1',
      // Dispatches that name no agent run the scripted one, as `baton config set agent scripted`
      // would make them (decision 185); test/cli/default-agent.test.ts clears it to test the rest.
      BATON_AGENT: 'scripted',
      // The run's mark, so its end finds anything left running (test/support/leftovers.ts).
      ...(process.env.BATON_TEST_RUN === undefined ? {} : { BATON_TEST_RUN: process.env.BATON_TEST_RUN }),
      ...extraEnv,
    };
    writeFileSync(
      join(fakeHome, '.gitconfig'),
      '[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n',
    );
  }

  /**
   * Step points for this test's processes (src/shared/test-points.ts): the supervisor started by
   * the next command, its hosts and its CLIs see them. Call it before the first command.
   */
  points(): TestPoints {
    const points = new TestPoints(join(this.root, 'points'));
    this.env.BATON_TEST_POINTS = points.dir;
    return points;
  }

  /** A fresh repository with one commit. */
  repo(name = 'repo', files: Record<string, string> = { 'README.md': '# test\n' }): string {
    const dir = join(this.root, name);
    mkdirSync(dir, { recursive: true });
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    this.git(dir, 'init', '--quiet');
    this.git(dir, 'add', '.');
    this.git(dir, 'commit', '--quiet', '-m', 'initial');
    this.repos.push(dir);
    return dir;
  }

  /** Trusts the current commands of every repository this test made (and the one `cwd` is in). */
  private trustRepoConfigs(cwd?: string): void {
    if (!this.trustConfigs) return;
    const roots = new Set(this.repos);
    for (let dir = cwd; dir !== undefined && dir.startsWith(this.root); dir = join(dir, '..')) {
      if (existsSync(join(dir, '.git'))) {
        roots.add(dir);
        break;
      }
      if (dir === this.root) break;
    }
    for (const root of roots) {
      if (!existsSync(join(root, '.baton', 'config.json'))) continue;
      let digest: string | undefined;
      try {
        digest = commandDigest(loadRepoConfig(root));
      } catch {
        continue; // A bad config is the test's subject: Baton names it, trust or not.
      }
      if (digest !== undefined && !isTrusted(this.home, root, digest)) trustDigest(this.home, root, digest);
    }
  }

  git(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, env: this.env, encoding: 'utf8' }).trim();
  }

  script(steps: unknown[], extra: Record<string, unknown> = {}): string {
    const file = join(this.root, `script-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ steps, ...extra }));
    return file;
  }

  /** Runs the real binary to completion. */
  run(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
    this.trustRepoConfigs(options.cwd);
    return new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { cwd: options.cwd ?? this.root, env: { ...this.env, ...options.env } },
        (error, stdout, stderr) => {
          // Killed by a signal: as a shell says it (128 + its number), and said, never read as 1.
          const signal = error?.signal;
          if (typeof signal === 'string') {
            done({
              code: 128 + constants.signals[signal],
              stdout,
              stderr: `${stderr}[killed by ${signal}]\n`,
            });
            return;
          }
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          done({ code, stdout, stderr });
        },
      );
    });
  }

  /** Runs the binary and fails the test unless it exits 0. */
  async ok(args: string[], options: { cwd?: string } = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0)
      throw new Error(`baton ${args.join(' ')} exited ${result.code}: ${result.stderr}${result.stdout}`);
    return result.stdout;
  }

  async json<T>(args: string[], options: { cwd?: string } = {}): Promise<T> {
    return JSON.parse(await this.ok([...args, '--json'], options)) as T;
  }

  /** Starts the binary without waiting (attach, logs -f); it is killed at cleanup. */
  spawn(args: string[], options: { cwd?: string } = {}): ChildProcess {
    this.trustRepoConfigs(options.cwd);
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? this.root,
      env: this.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.children.push(child);
    return child;
  }

  /** The first workspace event (replayed or live) that matches; fails after `timeoutMs` naming what it saw. */
  async workspaceEvent(
    match: (event: WorkspaceEvent) => boolean,
    timeoutMs = 30_000,
  ): Promise<WorkspaceEvent> {
    const controller = new AbortController();
    const seen: string[] = [];
    let found: WorkspaceEvent | undefined;
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      await this.client().followWorkspace(
        0,
        (event) => {
          seen.push(event.type);
          if (found === undefined && match(event)) {
            found = event;
            controller.abort();
          }
        },
        controller.signal,
      );
    } finally {
      clearTimeout(timer);
    }
    if (found === undefined)
      throw new Error(`timed out waiting for a workspace event; saw ${seen.join(' ')}`);
    return found;
  }

  client(cwd = this.root): SupervisorClient {
    this.trustRepoConfigs(cwd);
    const info = JSON.parse(readFileSync(join(this.home, 'supervisor.json'), 'utf8')) as { port: number };
    return new SupervisorClient(
      `http://127.0.0.1:${info.port}`,
      readFileSync(join(this.home, 'token'), 'utf8').trim(),
      cwd,
    );
  }

  supervisorPid(): number {
    return (JSON.parse(readFileSync(join(this.home, 'supervisor.json'), 'utf8')) as { pid: number }).pid;
  }

  /**
   * Resolves with the first event (replayed or live) that matches; rejects after `timeoutMs`
   * with the events seen, so a failure says what happened instead.
   */
  async waitForEvent(
    ref: string,
    match: (event: BatonEvent) => boolean,
    timeoutMs = 20_000,
  ): Promise<BatonEvent> {
    const controller = new AbortController();
    const seen: BatonEvent[] = [];
    let found: BatonEvent | undefined;
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      await this.client().follow(
        ref,
        0,
        (event) => {
          seen.push(event);
          if (found === undefined && match(event)) {
            found = event;
            controller.abort();
          }
        },
        controller.signal,
      );
    } finally {
      clearTimeout(timer);
    }
    if (found === undefined) {
      throw new Error(
        `timed out waiting on ${ref}; events: ${seen.map((e) => `${e.seq}:${e.type}${e.type === 'state.changed' ? `→${e.to}` : ''}`).join(' ')}`,
      );
    }
    return found;
  }

  /** Waits until the session's latest state is `state` (its most recent state.changed says so). */
  async waitForState(ref: string, state: SessionState, timeoutMs = 20_000): Promise<SessionView> {
    const controller = new AbortController();
    let current: SessionState | undefined;
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const trail: string[] = [];
    let live = false;
    try {
      // During replay only the final state counts; once live, every change is checked.
      await this.client().follow(
        ref,
        0,
        (event) => {
          // What the agent or Baton said went wrong, so a session that failed says why in the error.
          if (event.type === 'error.raised') trail.push(`(error: ${event.message.slice(0, 300)})`);
          if (event.type !== 'state.changed') return;
          current = event.to;
          const why =
            event.reason !== undefined && 'message' in event.reason ? event.reason.message : undefined;
          trail.push(why === undefined ? event.to : `${event.to} (${why.slice(0, 300)})`);
          if (live && current === state) controller.abort();
        },
        controller.signal,
        () => {
          live = true;
          if (current === state) controller.abort();
        },
      );
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
    }
    if (current !== state) throw new Error(`${ref} did not reach ${state}; states: ${trail.join(' → ')}`);
    const { session } = await this.client().call('GET /api/sessions/:ref', { params: { ref } });
    return session;
  }

  hostPids(): number[] {
    const sessions = join(this.home, 'sessions');
    if (!existsSync(sessions)) return [];
    const pids: number[] = [];
    for (const id of readdirSync(sessions)) {
      const hostJson = join(sessions, id, 'host.json');
      if (!existsSync(hostJson)) continue;
      try {
        pids.push((JSON.parse(readFileSync(hostJson, 'utf8')) as { pid: number }).pid);
      } catch {
        // Being written by a host just starting: found by its environment instead (ownPids).
      }
    }
    return pids;
  }

  /**
   * Pids of every process running with this test's BATON_HOME, and of everything below them (an
   * agent's environment no longer names BATON_HOME: decision 163), with their command lines.
   */
  processes(): { pid: number; cmdline: string }[] {
    return this.ownPids().map((pid) => {
      try {
        return { pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() };
      } catch {
        return { pid, cmdline: '' };
      }
    });
  }

  /**
   * Stops everything this test started — by pid — and deletes its folders. The supervisor goes
   * first so it starts nothing more; then every process running with this test's BATON_HOME,
   * which also finds a host that was being started and has not written its host.json yet.
   */
  cleanup(): void {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL');
    if (existsSync(join(this.home, 'supervisor.json'))) this.killOwn(this.supervisorPid());
    for (const pid of this.hostPids()) this.killOwn(pid);
    // Found by their environment or as its processes' children just now: this test's.
    for (const pid of this.ownPids()) kill(pid);
    rmSync(this.root, { recursive: true, force: true });
  }

  /**
   * Kills `pid` if it is still this test's process: its environment names this home, or (a
   * session host, started with the home as its argument) its command line does. A pid read from
   * supervisor.json or host.json may be a process killed long ago, and where pids go up to 32,768
   * a busy machine comes round to the same number within minutes (~50 new processes a second,
   * measured beside the benches): it may be another test's command by now, and killing that fails
   * the other test with nothing said (its exit read as 1).
   */
  private killOwn(pid: number): void {
    if (isOwnedBy(pid, this.home)) kill(pid);
  }

  /** This test's processes: those with its BATON_HOME, then their descendants (agents, their tools). */
  private ownPids(): number[] {
    const roots = processesWithEnv(`BATON_HOME=${this.home}`);
    return [...new Set([...roots, ...roots.flatMap((pid) => descendantsOf(pid))])];
  }
}

/** Whether `pid` runs with `home` as its BATON_HOME or names it on its command line; without /proc to ask (not Linux), assumed. */
export function isOwnedBy(pid: number, home: string): boolean {
  if (!existsSync('/proc/self/environ')) return true;
  try {
    return (
      readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`BATON_HOME=${home}`) ||
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(home)
    );
  } catch {
    return false; // gone, or another user's
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Pids of this user's processes whose environment holds `entry` exactly (Linux: /proc). */
function processesWithEnv(entry: string): number[] {
  if (!existsSync('/proc/self/environ')) return [];
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry)) pids.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}
