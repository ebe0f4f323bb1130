/**
 * Fuzzing: generated requests to every endpoint of the tables and generated argument vectors
 * for every command of `bin/baton`, against one real supervisor with a few real sessions. Each
 * run prints its seed on failure (`BATON_FUZZ_SEED=<n>` repeats it); `BATON_SOAK_FUZZ=<n>` runs
 * n cases instead of the 1,000 of `npm test` (every route about five times, every command twice;
 * `npm run soak` runs 20,000).
 *
 * What must hold: the supervisor never crashes (the same pid answers /api/health after), a
 * client's mistake never gets a 5xx, no answer or CLI output shows a stack trace, nothing is
 * written outside the state folder and the test repository (not even by a value made to look
 * like a git option or a shell command), the user's checkout is untouched, the supervisor
 * logs no error and its database passes SQLite's integrity check. Its RSS before and after is
 * printed.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EndpointSpec } from '../../src/api/endpoint.js';
import { MAX_BODY_BYTES } from '../../src/api/index.js';
import { TABLES } from '../../src/server/openapi.js';
import { BIN, TestBaton } from '../support/baton.js';
import { fuzzSeed, nastyStrings, seeded, STACK_LINE } from '../support/fuzz.js';
import { argv, readCommands, runCli, type CliCommand } from '../support/fuzz-cli.js';
import { closeAgent, httpCase, send, webCase, type HttpCase } from '../support/fuzz-http.js';

const TOTAL = Number(process.env.BATON_SOAK_FUZZ ?? 1_000);
const HTTP_CASES = Math.round(TOTAL * 0.8);
const CLI_CASES = TOTAL - HTTP_CASES;
/** Dispatches whose only fault may be a fuzzed name, base, model or prompt: the only ones that can start a session. */
const VALID_DISPATCHES = Math.max(6, Math.round(TOTAL / 300));
/** Commands that would end the run or start a whole demo; each is tested on its own elsewhere. */
const SKIPPED_COMMANDS = new Set(['daemon stop', 'demo']);
/** Untracked files Baton writes in a repository when asked to. */
const ASKED_FOR =
  /^\?\? \.baton\/(transcripts\/[^/]+\.(json|md)|decisions\/[^/]+\.md|notes\/[^/]+\.md|status\.md)$/;
const FOLLOWERS = /^(attach|logs|events)$/;

let t: TestBaton;
let outside: string;
beforeEach(() => {
  // Outside the test's folder: where a command that obeyed a fuzzed value would write.
  outside = mkdtempSync(join(tmpdir(), 'baton-fuzz-outside-'));
  mkdirSync(join(outside, 'tmp'));
  const stub = join(outside, 'no-agent');
  // The network edge: a real agent binary would call its vendor, `gh` GitHub; these stand-ins refuse at once.
  writeFileSync(stub, '#!/bin/sh\necho "no network in the fuzz run" >&2\nexit 1\n', { mode: 0o755 });
  mkdirSync(join(outside, 'bin'));
  for (const name of ['gh', 'claude', 'codex'])
    writeFileSync(join(outside, 'bin', name), '#!/bin/sh\necho "no network in the fuzz run" >&2\nexit 1\n', {
      mode: 0o755,
    });
  t = new TestBaton({
    TMPDIR: join(outside, 'tmp'),
    PATH: `${join(outside, 'bin')}:${process.env.PATH ?? ''}`,
    BATON_CLAUDE_PATH: stub,
    BATON_CODEX_PATH: stub,
    BATON_NO_BROWSER: '1',
  });
});
afterEach(() => {
  closeAgent();
  t.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

interface Failure {
  what: string;
  problem: string;
}

/** The supervisor's log lines at level error (a stack printed to stderr counts too). */
function loggedErrors(): string[] {
  return readFileSync(join(t.home, 'supervisor.log'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        return (JSON.parse(line) as { level: string }).level === 'error';
      } catch {
        return true;
      }
    });
}

async function realSessions(repo: string): Promise<string[]> {
  const refs: string[] = [];
  for (const [name, steps] of [
    ['fuzz-ask', [{ ask: 'which way?' }]],
    ['fuzz-done', [{ write: { path: 'f.txt', content: 'x\n' } }]],
    ['fuzz-approve', [{ approve: { tool: 'Bash', input: 'true', reason: 'r' } }]],
  ] as const) {
    const session = JSON.parse(
      await t.ok(['dispatch', 'fuzz', '--name', name, '--script', t.script([...steps]), '--json'], {
        cwd: repo,
      }),
    ) as { id: string };
    refs.push(name, session.id, session.id.slice(0, 6));
  }
  await t.waitForState('fuzz-done', 'ready_for_review');
  return refs;
}

/** A log line, with the tail of the host log it points to (a host's own failure is told there). */
function withHostLog(line: string): string {
  const file = /see (\S+host\.log)/.exec(line)?.[1];
  const tail =
    file !== undefined && existsSync(file)
      ? `\n    host.log: ${readFileSync(file, 'utf8').slice(-1500)}`
      : '';
  return line.slice(0, 600) + tail;
}

function checkAnswer(c: HttpCase, status: number, body: string, contentType: string): string | undefined {
  if (status >= 500) return `status ${status}: ${body.slice(0, 300)}`;
  if (STACK_LINE.test(body)) return `a stack trace in the answer: ${body.slice(0, 500)}`;
  if (/root:.*:0:0:/.test(body)) return `a file outside the web UI was served: ${body.slice(0, 200)}`;
  if (status >= 400 && c.method !== 'HEAD' && contentType.includes('json')) {
    const error = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof error?.code !== 'string' || typeof error.message !== 'string' || error.message === '')
      return `an error without code and message: ${body.slice(0, 300)}`;
  }
  return undefined;
}

describe('fuzzing', () => {
  it(
    'generated requests and command lines never crash the supervisor, get a 5xx, show a stack or write outside',
    { timeout: 20 * 60_000 },
    async () => {
      const seed = fuzzSeed();
      const rng = seeded(seed);
      const repo = t.repo();
      const plain = join(t.root, 'plain');
      mkdirSync(plain);
      await t.ok(['daemon', 'start']);
      const pid = t.supervisorPid();
      const headBefore = t.git(repo, 'rev-parse', 'HEAD');
      const canary = join(outside, 'canary');
      const strings = nastyStrings(canary);
      const refs = await realSessions(repo);
      const rssBefore = rssKb(pid);
      const failures: Failure[] = [];
      const outcomes = new Map<string, number>();
      const count = (key: string): void => void outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      const { port } = JSON.parse(readFileSync(join(t.home, 'supervisor.json'), 'utf8')) as { port: number };
      const token = readFileSync(join(t.home, 'token'), 'utf8').trim();
      const script = t.script([{ say: 'fuzzed' }]);

      // HTTP: every route in turn, then a valid dispatch now and then.
      const routes = Object.entries(TABLES) as [string, EndpointSpec][];
      const cases: HttpCase[] = [];
      for (let i = 0; i < HTTP_CASES; i++) {
        const [route, spec] = routes[i % routes.length] as [string, EndpointSpec];
        // One in twenty goes to the web UI's routes, outside the tables.
        cases.push(
          rng.chance(0.05)
            ? webCase({ rng, port, token, refs, strings, repo })
            : httpCase({ rng, port, token, refs, strings, repo }, route, spec),
        );
      }
      for (let i = 0; i < VALID_DISPATCHES; i++) {
        const body: Record<string, unknown> = {
          prompt: rng.pick(strings) || 'p',
          cwd: repo,
          agent: 'scripted',
          options: { script: { steps: [{ say: 'hi' }] } },
        };
        for (const key of ['name', 'base', 'model'] as const)
          if (rng.chance(0.6)) body[key] = rng.pick(strings);
        cases.splice(rng.int(0, cases.length), 0, {
          method: 'POST',
          path: '/api/sessions',
          headers: {
            host: `127.0.0.1:${port}`,
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
          label: `valid dispatch ${JSON.stringify({ name: body.name, base: body.base, model: body.model }).slice(0, 200)}`,
        });
      }
      let next = 0;
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          while (next < cases.length) {
            const c = cases[next++] as HttpCase;
            try {
              const answer = await send(port, c);
              count(`HTTP ${answer.status}`);
              const problem = checkAnswer(c, answer.status, answer.body, answer.contentType);
              if (problem !== undefined) failures.push({ what: c.label, problem });
            } catch (error) {
              // An upload over the limit may be cut instead of answered (RFC 9110, 413: the server
              // MAY close the connection): the server stops draining it after a while, and on a busy
              // machine the client can still be sending then. Anything else unanswered is a fault.
              const code = (error as NodeJS.ErrnoException).code;
              if (oversized(c) && (code === 'ECONNRESET' || code === 'EPIPE'))
                count('upload over the limit cut');
              else failures.push({ what: c.label, problem: `no answer: ${(error as Error).message}` });
            }
          }
        }),
      );

      // The command line: every command and flag the binary lists.
      const commands = readCommands(BIN, t.env).filter(
        (command) => !SKIPPED_COMMANDS.has(command.words.join(' ')),
      );
      const vectors: { args: string[]; command: CliCommand; cwd: string }[] = [];
      for (let i = 0; i < CLI_CASES; i++) {
        const command = commands[i % commands.length] as CliCommand;
        const args = argv({ rng, strings, refs, script }, command);
        // A dispatch in the repository with good flags would start a session: most run elsewhere.
        const cwd =
          command.words[0] === 'dispatch' && rng.chance(0.9) ? plain : rng.pick([repo, plain, t.root]);
        vectors.push({ args, command, cwd });
      }
      next = 0;
      await Promise.all(
        Array.from({ length: 3 }, async () => {
          while (next < vectors.length) {
            const { args, command, cwd } = vectors[next++] as (typeof vectors)[number];
            const follows = args.some((a) => a === '-f' || a === '--follow');
            // Commands that rightly keep running: followers, and waits on a session still at work.
            const waits =
              command.words[0] === 'wait' ||
              (command.words[0] === 'dispatch' && args.some((a) => a === '-w' || a === '--wait'));
            // `baton watch` (alerts as they happen) and `task ls --watch` follow until stopped, by design.
            const watches =
              command.words[0] === 'watch' ||
              (command.words.join(' ') === 'task ls' && (args.includes('--watch') || args.includes('-w')));
            const follower =
              waits ||
              watches ||
              (FOLLOWERS.test(command.words[0] as string) && (command.words[0] === 'attach' || follows)) ||
              (command.words.join(' ') === 'daemon logs' && follows);
            const outcome = await runCli(BIN, args, {
              cwd,
              env: t.env,
              timeoutMs: follower ? 1_500 : 30_000,
            });
            const what = `baton ${args.map((a) => JSON.stringify(a.slice(0, 60))).join(' ')} (in ${cwd === repo ? 'the repo' : 'a plain folder'})`;
            count(
              outcome.timedOut ? 'CLI followed until stopped' : `CLI exit ${outcome.code ?? outcome.signal}`,
            );
            if (outcome.timedOut && !follower) failures.push({ what, problem: 'still running after 30 s' });
            else if (!outcome.timedOut && outcome.code === null)
              failures.push({ what, problem: `killed by ${outcome.signal}` });
            if (STACK_LINE.test(outcome.stdout + outcome.stderr))
              failures.push({ what, problem: `a stack trace: ${outcome.stderr.slice(0, 600)}` });
            if (/internal error/i.test(outcome.stderr))
              failures.push({ what, problem: outcome.stderr.slice(0, 300) });
          }
        }),
      );

      // After: the same supervisor, nothing outside, the checkout untouched, nothing logged as an error.
      const health = await t.client().call('GET /api/health');
      const rssAfter = rssKb(pid);
      if (health.pid !== pid)
        failures.push({
          what: 'after the run',
          problem: `the supervisor is another process (${health.pid}, was ${pid})`,
        });
      if (existsSync(canary))
        failures.push({ what: 'after the run', problem: `a fuzzed value wrote ${canary}` });
      const leftInTmp = readdirSync(join(outside, 'tmp'));
      if (leftInTmp.length > 0)
        failures.push({ what: 'after the run', problem: `files left in TMPDIR: ${leftInTmp.join(', ')}` });
      const strayInRoot = readdirSync(t.root).filter(
        (name) => !['home', 'repo', 'user', 'plain'].includes(name) && !name.startsWith('script-'),
      );
      if (strayInRoot.length > 0)
        failures.push({
          what: 'after the run',
          problem: `files written beside the state folder: ${strayInRoot.join(', ')}`,
        });
      const strayInHome = readdirSync(join(t.root, 'user')).filter((name) => name !== '.gitconfig');
      if (strayInHome.length > 0)
        failures.push({
          what: 'after the run',
          problem: `files written in $HOME: ${strayInHome.join(', ')}`,
        });
      const strayInPlain = readdirSync(plain);
      if (strayInPlain.length > 0)
        failures.push({
          what: 'after the run',
          problem: `files written in the working folder: ${strayInPlain.join(', ')}`,
        });
      // Asked for, Baton writes into the repository's own .baton folder (a transcript exported to the
      // repository, a decision, a note, the task status file): a fuzzed request may well ask for it.
      const status = t
        .git(repo, 'status', '--porcelain', '--untracked-files=all')
        .split('\n')
        .filter((line) => line !== '' && !ASKED_FOR.test(line))
        .join('\n');
      const headAfter = t.git(repo, 'rev-parse', 'HEAD');
      if (status !== '' || headAfter !== headBefore)
        failures.push({
          what: 'after the run',
          problem: `the main checkout changed: ${status === '' ? '' : `status ${JSON.stringify(status.slice(0, 300))}`}${headAfter === headBefore ? '' : ` HEAD ${headBefore} → ${headAfter}`}`,
        });
      for (const line of loggedErrors())
        failures.push({ what: 'supervisor.log', problem: withHostLog(line) });
      const db = new Database(join(t.home, 'baton.db'), { readonly: true });
      const integrity = db.pragma('integrity_check', { simple: true }) as string;
      db.close();
      if (integrity !== 'ok') failures.push({ what: 'baton.db', problem: `integrity_check: ${integrity}` });

      const summary = [...outcomes]
        .sort()
        .map(([key, n]) => `${key}: ${n}`)
        .join(', ');
      console.log(
        `fuzz seed ${seed}: ${cases.length} requests, ${vectors.length} command lines; ${summary}; supervisor RSS ${rssBefore} kB before, ${rssAfter} kB after`,
      );
      if (failures.length > 0) {
        const shown = failures
          .slice(0, 25)
          .map((f) => `  ${f.what}\n    → ${f.problem}`)
          .join('\n');
        throw new Error(
          `fuzz seed ${seed} (BATON_FUZZ_SEED=${seed} repeats it): ${failures.length} failures\n${shown}`,
        );
      }
      // A leak would show as growth far beyond the caches of a few sessions.
      expect(rssAfter - rssBefore, `fuzz seed ${seed}: RSS ${rssBefore} kB → ${rssAfter} kB`).toBeLessThan(
        150 * 1024,
      );
    },
  );
});

/** A body over the API's limit, which the server answers 413 without reading it all. */
function oversized(c: HttpCase): boolean {
  return c.body !== undefined && Buffer.byteLength(c.body) > MAX_BODY_BYTES;
}
