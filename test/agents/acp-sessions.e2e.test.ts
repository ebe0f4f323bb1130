/**
 * An Agent Client Protocol agent — the real Gemini CLI — through the whole product: the `baton`
 * CLI, the supervisor and a session host, against the scripted model server. The states `baton
 * ls` shows come from the protocol's own signals (a permission request, the prompt's stop
 * reason), and this test measures how long after the model's last answer each shows.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentListing } from '../../src/api/doctor.js';
import type { SessionView } from '../../src/api/index.js';
import {
  geminiEnv,
  installedGeminiPath,
  startModelServer,
  type ModelServer,
  type Scenario,
} from '../support/model-server/index.js';
import { TestBaton } from '../support/baton.js';

const WAIT = 180_000;
vi.setConfig({ testTimeout: 3 * WAIT });

const run = (command: string) => ({
  tools: [{ name: 'run_shell_command', input: { command, description: 'a marker' } }],
});
const scenarios: Scenario[] = [
  { prompt: 'mine: say hello', steps: [{ text: 'Hello from my own entry.' }] },
  { prompt: 'gemini: say hello', steps: [{ text: 'Hello from Gemini.', usage: { input: 300, output: 40 } }] },
  { prompt: 'gemini: approve a command', steps: [run('echo yes > approved.txt'), { text: 'Ran it.' }] },
  { prompt: 'gemini: wait to be stopped', steps: [run('echo late > late.txt'), { text: 'Ran it.' }] },
];

let server: ModelServer;
let agentHome: string;
let t: TestBaton;
let repo: string;
const figures: string[] = [];

beforeAll(async () => {
  server = await startModelServer(scenarios);
});
afterAll(async () => {
  await server.close();
  console.log(['', '## ACP (gemini): model answer → state in baton ls', ...figures].join('\n'));
});
afterEach(() => {
  t.cleanup();
  rmSync(agentHome, { recursive: true, force: true });
  server.assertClean();
});

function setUp(): void {
  agentHome = mkdtempSync(join(tmpdir(), 'baton-acp-home-'));
  t = new TestBaton({
    ...geminiEnv({ url: server.url, home: agentHome }),
    BATON_GEMINI_PATH: installedGeminiPath(),
  });
  repo = t.repo();
  mkdirSync(t.home, { recursive: true });
}

/** When the session's log says the event happened (the host stamps each event as it writes it). */
function loggedAt(session: SessionView, match: (e: { type: string; to?: string }) => boolean): number {
  const log = readFileSync(join(t.home, 'sessions', session.id, 'events.jsonl'), 'utf8');
  const event = log
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; to?: string; ts: string })
    .findLast(match);
  if (event === undefined) throw new Error(`no such event in ${session.id}'s log`);
  return Date.parse(event.ts);
}

/**
 * From the protocol's signal — the adapter's event, stamped when the permission request or the
 * prompt's answer arrived — to the state change, and to a client (the CLI's stream, what `baton
 * ls` reads) seeing it.
 */
function lags(session: SessionView, signal: string, state: string, seenAt: number): string {
  const at = loggedAt(session, (e) => e.type === signal);
  const changed = loggedAt(session, (e) => e.type === 'state.changed' && e.to === state);
  return `${signal} → ${state}: ${changed - at} ms in the log, ${seenAt - at} ms to a client`;
}

describe('gemini sessions through baton', () => {
  it('lists gemini and user entries in baton agents, and runs a user entry by its name', async () => {
    setUp();
    writeFileSync(
      join(t.home, 'config.json'),
      JSON.stringify({
        agents: {
          'my-acp': { command: '/nonexistent/my-acp', args: ['--acp'] },
          // The real Gemini CLI under a name of the user's: nothing of the built-in entry applies.
          'my-gemini': { command: installedGeminiPath(), args: ['--acp'] },
        },
      }),
    );
    const { agents } = await t.json<{ agents: AgentListing[] }>(['agents', '--json']);
    const gemini = agents.find((a) => a.name === 'gemini');
    expect(gemini).toMatchObject({
      protocol: 'acp',
      path: installedGeminiPath(),
      signedIn: '$GEMINI_API_KEY',
    });
    expect(gemini?.supports).toMatchObject({ approvals: true, resume: 'new-conversation' });
    const mine = agents.find((a) => a.name === 'my-acp');
    expect(mine).toMatchObject({ source: 'config', command: '/nonexistent/my-acp', args: ['--acp'] });
    expect(mine?.fix).toContain('not an executable file');
    const text = await t.ok(['agents']);
    expect(text).toMatch(/✓ gemini +Gemini CLI \(Agent Client Protocol: gemini --acp\)/);
    expect(text).toMatch(/✗ my-acp .*your entry/);

    // Dispatched by its name, as any agent: a turn through the ACP adapter to ready for review.
    await t.ok(['dispatch', 'mine: say hello', '--agent', 'my-gemini', '--name', 'mine'], { cwd: repo });
    const done = await t.waitForState('mine', 'ready_for_review', WAIT);
    expect(done.agent).toBe('my-gemini');
    const transcript = await t.ok(['transcript', 'mine']);
    expect(transcript).toContain('Hello from my own entry.');
    // An entry whose command is not there is refused at dispatch, making nothing.
    const missing = await t.run(['dispatch', 'anything', '--agent', 'my-acp'], { cwd: repo });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('/nonexistent/my-acp is not an executable file');
    expect((await t.json<SessionView[]>(['ls'])).map((s) => s.name)).toEqual(['mine']);
  });

  it('refuses a bad agents entry in config.json, naming the key', async () => {
    setUp();
    writeFileSync(join(t.home, 'config.json'), JSON.stringify({ agents: { Gemini2: { command: 'x' } } }));
    const result = await t.run(['config', 'get']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('agents.Gemini2: an agent name is lowercase');
  });

  it('runs a turn to ready_for_review, with its tokens, shown soon after the model answered', async () => {
    setUp();
    await t.ok(['dispatch', 'gemini: say hello', '--agent', 'gemini', '--name', 'hello'], { cwd: repo });
    const done = await t.waitForState('hello', 'ready_for_review', WAIT);
    const seen = Date.now();
    expect(done.agent).toBe('gemini');
    expect(done.inputTokens).toBe(300);
    const ls = await t.json<SessionView[]>(['ls']);
    expect(ls.find((s) => s.name === 'hello')?.state).toBe('ready_for_review');
    figures.push(`- ${lags(done, 'turn.completed', 'ready_for_review', seen)}`);
  });

  it('holds a command as needs_input with the command, runs it when approved through baton approve', async () => {
    setUp();
    await t.ok(['dispatch', 'gemini: approve a command', '--agent', 'gemini', '--name', 'ap'], { cwd: repo });
    const waiting = await t.waitForState('ap', 'needs_input', WAIT);
    const seen = Date.now();
    expect(JSON.stringify(waiting.reason)).toContain('echo yes > approved.txt');
    expect(existsSync(join(waiting.worktree, 'approved.txt'))).toBe(false);
    figures.push(`- ${lags(waiting, 'approval.requested', 'needs_input', seen)}`);
    await t.ok(['approve', 'ap']);
    const done = await t.waitForState('ap', 'ready_for_review', WAIT);
    expect(readFileSync(join(done.worktree, 'approved.txt'), 'utf8')).toBe('yes\n');
  });

  it('stops a session waiting on a permission: stopped, and the command never ran', async () => {
    setUp();
    await t.ok(['dispatch', 'gemini: wait to be stopped', '--agent', 'gemini', '--name', 'st'], {
      cwd: repo,
    });
    const waiting = await t.waitForState('st', 'needs_input', WAIT);
    await t.ok(['stop', 'st']);
    await t.waitForState('st', 'stopped', WAIT);
    expect(existsSync(join(waiting.worktree, 'late.txt'))).toBe(false);
  });
});
