/**
 * The real `claude` and `codex` binaries driven through the whole product — the `baton` CLI, the
 * supervisor, session hosts — against the scripted model server. Nothing leaves 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PeekView, SessionView } from '../../src/api/index.js';
import type { BatonEvent } from '../../src/events/index.js';
import {
  realAgentsEnv,
  startModelServer,
  type ModelServer,
  type Scenario,
} from '../support/model-server/index.js';
import { sharedHome, TestBaton } from '../support/baton.js';

const patch = (body: string): string => `*** Begin Patch\n${body}*** End Patch\n`;
const escalated = (cmd: string) => ({
  cmd,
  sandbox_permissions: 'require_escalated',
  justification: 'needs your approval',
});

interface AgentCase {
  agent: 'claude' | 'codex';
  write: Scenario['steps'];
  approve: (cmd: string) => Scenario['steps'][number];
  longWait: Scenario['steps'];
}

const CASES: AgentCase[] = [
  {
    agent: 'claude',
    write: [
      { tools: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'alpha\n' } }] },
      {
        tools: [{ name: 'Edit', input: { file_path: 'notes.txt', old_string: 'alpha', new_string: 'beta' } }],
      },
      { tools: [{ name: 'Bash', input: { command: 'cat notes.txt > ran.txt', description: 'copy' } }] },
      { text: 'Finished the notes.' },
    ],
    approve: (command) => ({ tools: [{ name: 'Bash', input: { command, description: 'marker' } }] }),
    longWait: [
      { tools: [{ name: 'Bash', input: { command: 'echo started > started.txt', description: 'mark' } }] },
      // Claude Code blocks long `sleep` commands (it wants background tasks); this one is not a sleep.
      {
        tools: [
          {
            name: 'Bash',
            input: { command: 'node -e "setTimeout(() => {}, 60000)" # long wait', description: 'wait' },
          },
        ],
      },
      { text: 'Waited.' },
    ],
  },
  {
    agent: 'codex',
    write: [
      { tools: [{ name: 'apply_patch', input: patch('*** Add File: notes.txt\n+alpha\n') }] },
      { tools: [{ name: 'apply_patch', input: patch('*** Update File: notes.txt\n@@\n-alpha\n+beta\n') }] },
      { tools: [{ name: 'exec_command', input: { cmd: 'cat notes.txt > ran.txt' } }] },
      { text: 'Finished the notes.' },
    ],
    approve: (cmd) => ({ tools: [{ name: 'exec_command', input: escalated(cmd) }] }),
    longWait: [
      { tools: [{ name: 'exec_command', input: { cmd: 'echo started > started.txt' } }] },
      { tools: [{ name: 'exec_command', input: { cmd: 'sleep 60 # long wait', yield_time_ms: 120_000 } }] },
      { text: 'Waited.' },
    ],
  },
];

const scenarios: Scenario[] = CASES.flatMap(({ agent, write, approve, longWait }) => [
  { prompt: `${agent}: write edit run`, steps: write },
  { prompt: `${agent}: approve a command`, steps: [approve('echo yes > approved.txt'), { text: 'Ran it.' }] },
  {
    prompt: `${agent}: deny a command`,
    steps: [approve('echo no > denied.txt'), { text: 'I will not run it.' }],
  },
  { prompt: `${agent}: remember the word banana`, steps: [{ text: 'I will remember banana.' }] },
  { prompt: `${agent}: which word was it`, steps: [{ text: 'The word was banana.' }] },
  { prompt: `${agent}: start then wait long`, steps: longWait },
  { prompt: `${agent}: fail with 500`, steps: [{ error: { status: 500, message: 'scripted overload' } }] },
  {
    prompt: `${agent}: ask me`,
    steps: [{ text: 'I read the code.\n\nShould I keep the old onChange signature?' }],
  },
  ...[1, 2].map((n) => ({
    prompt: `${agent}: parallel ${n}`,
    steps: [approve(`echo ${agent}-${n} > parallel.txt`), { text: `Parallel ${n} done.` }],
  })),
]);

/**
 * One wait (a turn of a real agent) gets WAIT; a test of several waits gets far longer, so a stuck
 * wait fails with its own message ("did not reach …; states: …") rather than the test's timeout.
 */
const WAIT = 45_000;
vi.setConfig({ testTimeout: 4 * WAIT });

let server: ModelServer;
const agentHomes: string[] = [];
let t: TestBaton;
let repo: string;

beforeAll(async () => {
  server = await startModelServer(scenarios);
});
afterAll(async () => {
  await server.close();
  for (const home of agentHomes.splice(0)) rmSync(home, { recursive: true, force: true });
});
afterEach(() => {
  server.assertClean();
});

/**
 * The tests of a block share one Baton home and supervisor (decisions 422 and 433): each test
 * dispatches in a repository of its own, under session names no other test of the block uses, and
 * lists only its repository's sessions. The agents' own home (HOME for claude and codex) is the
 * block's too: each conversation is its own there.
 */
function shareAgentsHome(): void {
  sharedHome(
    (baton, dir) => ((t = baton), (repo = dir)),
    () => {
      const agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
      agentHomes.push(agentHome);
      return new TestBaton(realAgentsEnv(server.url, agentHome));
    },
  );
}

async function events(ref: string): Promise<BatonEvent[]> {
  return (await t.ok(['logs', ref, '--json']))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as BatonEvent);
}

/** The agent process the session host started (the host's only long-lived child). */
function agentChildPid(hostPid: number): number {
  const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(hostPid)], { encoding: 'utf8' });
  const pids = out.trim().split(/\s+/).filter(Boolean).map(Number);
  if (pids.length === 0) throw new Error(`host ${hostPid} has no child`);
  return pids[0]!;
}

describe.each(CASES.map((c) => c.agent))('%s through baton', (agent) => {
  shareAgentsHome();

  it('writes, edits and runs a command in its worktree, reporting files and usage', async () => {
    await t.ok(
      [
        'dispatch',
        `${agent}: write edit run`,
        '--agent',
        agent,
        '--name',
        'w',
        '--permission-mode',
        'acceptEdits',
      ],
      { cwd: repo },
    );
    const done = await t.waitForState('w', 'ready_for_review', WAIT);
    expect(readFileSync(join(done.worktree, 'notes.txt'), 'utf8')).toBe('beta\n');
    expect(existsSync(join(repo, 'notes.txt'))).toBe(false);
    expect(done.inputTokens).toBeGreaterThan(0);
    expect(done.outputTokens).toBeGreaterThan(0);
    const peek = await t.json<PeekView>(['peek', 'w']);
    expect(peek.filesChanged.map((f) => f.path).sort()).toEqual(['notes.txt', 'ran.txt']);
    expect(peek.lastOutput).toBe('Finished the notes.');
    const all = await events('w');
    expect(all).toContainEqual(
      expect.objectContaining({ type: 'tool.finished', files: ['notes.txt'], ok: true }),
    );
    expect(all.filter((e) => e.type === 'usage.reported').length).toBeGreaterThan(0);
  });

  it('holds an approval as needs_input with the command, then runs it when approved', async () => {
    await t.ok(['dispatch', `${agent}: approve a command`, '--agent', agent, '--name', 'ap'], { cwd: repo });
    const waiting = await t.waitForState('ap', 'needs_input', WAIT);
    expect(waiting.reason).toMatchObject({ kind: 'approval' });
    expect(JSON.stringify(waiting.reason)).toContain('echo yes > approved.txt');
    expect(existsSync(join(waiting.worktree, 'approved.txt'))).toBe(false);
    expect(await t.ok(['ls', '--here'], { cwd: repo })).toMatch(
      /Needs input \(1\)\n.*ap .*waiting: approve .*echo yes > approved\.txt/,
    );
    await t.ok(['approve', 'ap']);
    const done = await t.waitForState('ap', 'ready_for_review', WAIT);
    expect(readFileSync(join(done.worktree, 'approved.txt'), 'utf8')).toBe('yes\n');
  });

  it('denies an approval: the command does not run and the agent is told', async () => {
    await t.ok(['dispatch', `${agent}: deny a command`, '--agent', agent, '--name', 'dn'], { cwd: repo });
    const waiting = await t.waitForState('dn', 'needs_input', WAIT);
    await t.ok(['deny', 'dn', '--reason', 'not that file']);
    await t.waitForState('dn', 'ready_for_review', WAIT);
    expect(existsSync(join(waiting.worktree, 'denied.txt'))).toBe(false);
    const followUp = server.requestsFor(`${agent}: deny a command`).at(-1)!;
    expect(followUp.stepIndex).toBe(1);
    // Claude gets the reason in the tool result; codex's refusal has no words, so it gets it
    // beside the function_call_output: either way it is in what the model reads next.
    expect(followUp.text).toContain('not that file');
    if (agent === 'codex') expect(followUp.text).toContain('rejected by user');
  });

  it('takes a follow-up reply as a second turn of the same conversation', async () => {
    await t.ok(['dispatch', `${agent}: remember the word banana`, '--agent', agent, '--name', 'fu'], {
      cwd: repo,
    });
    await t.waitForState('fu', 'ready_for_review', WAIT);
    await t.ok(['reply', 'fu', `${agent}: which word was it`]);
    await t.waitForEvent('fu', (e) => e.type === 'message.added' && e.text === 'The word was banana.', WAIT);
    await t.waitForState('fu', 'ready_for_review', WAIT);
    expect((await events('fu')).filter((e) => e.type === 'turn.started')).toHaveLength(2);
    expect(server.requestsFor(`${agent}: which word was it`)[0]!.text).toContain('I will remember banana.');
  });

  it('takes a reply after being stopped by resuming the same conversation', async () => {
    await t.ok(['dispatch', `${agent}: remember the word banana`, '--agent', agent, '--name', 'sr'], {
      cwd: repo,
    });
    await t.waitForState('sr', 'ready_for_review', WAIT);
    const stopped = await t.json<SessionView>(['stop', 'sr']);
    expect(stopped).toMatchObject({ state: 'stopped', running: false });

    await t.ok(['reply', 'sr', `${agent}: which word was it`]);
    await t.waitForEvent('sr', (e) => e.type === 'message.added' && e.text === 'The word was banana.', WAIT);
    await t.waitForState('sr', 'ready_for_review', WAIT);
    const log = await events('sr');
    expect(
      log
        .filter((e) => e.type === 'session.started')
        .map((e) => (e.type === 'session.started' ? e.resumed : null)),
    ).toEqual([false, true]);
    // The model was asked in the resumed conversation, which still holds the first turn.
    expect(server.requestsFor(`${agent}: which word was it`).at(-1)!.text).toContain(
      'I will remember banana.',
    );
  });

  it('needs input when the turn ends with a question, showing the question', async () => {
    await t.ok(['dispatch', `${agent}: ask me`, '--agent', agent, '--name', 'qq'], { cwd: repo });
    const waiting = await t.waitForState('qq', 'needs_input', WAIT);
    expect(waiting.reason).toEqual({ kind: 'question', text: 'Should I keep the old onChange signature?' });
  });

  it('fails with the API error visible, and is stopped (not failed) when the user stops it', async () => {
    await t.ok(['dispatch', `${agent}: fail with 500`, '--agent', agent, '--name', 'err'], { cwd: repo });
    const failed = await t.waitForState('err', 'failed', WAIT);
    expect(JSON.stringify(failed.reason)).toMatch(/500|overload|internal/i);

    let asked = 0;
    await t.ok(
      [
        'dispatch',
        `${agent}: start then wait long`,
        '--agent',
        agent,
        '--name',
        'st',
        '--permission-mode',
        'acceptEdits',
        '--base',
        'HEAD',
      ],
      { cwd: repo },
    );
    // Agents may ask before running a command; approve whatever is asked until the sleep runs.
    for (;;) {
      const next = await t.waitForEvent(
        'st',
        (e) =>
          (e.type === 'tool.started' && e.input.includes('# long wait')) ||
          (e.type === 'state.changed' && e.to === 'needs_input' && e.seq > asked),
        WAIT,
      );
      if (next.type === 'tool.started') break;
      asked = next.seq;
      await t.ok(['approve', 'st']);
    }
    const stopped = await t.json<SessionView>(['stop', 'st']);
    expect(stopped.state).toBe('stopped');
  });

  it('interrupts a long command from the CLI; the conversation stays open for a reply', async () => {
    await t.ok(
      [
        'dispatch',
        `${agent}: start then wait long`,
        '--agent',
        agent,
        '--name',
        'int',
        '--permission-mode',
        'acceptEdits',
      ],
      { cwd: repo },
    );
    let asked = 0;
    for (;;) {
      const next = await t.waitForEvent(
        'int',
        (e) =>
          (e.type === 'tool.started' && e.input.includes('# long wait')) ||
          (e.type === 'state.changed' && e.to === 'needs_input' && e.seq > asked),
        WAIT,
      );
      if (next.type === 'tool.started') break;
      asked = next.seq;
      await t.ok(['approve', 'int']);
    }
    const interrupted = await t.json<SessionView>(['interrupt', 'int']);
    await t.waitForEvent('int', (e) => e.type === 'turn.completed' && e.outcome === 'interrupted', WAIT);
    expect(interrupted.running).toBe(true);
    await t.ok(['reply', 'int', `${agent}: remember the word banana`]);
    await t.waitForEvent(
      'int',
      (e) => e.type === 'message.added' && e.text === 'I will remember banana.',
      WAIT,
    );
    await t.waitForState('int', 'ready_for_review', WAIT);
  });

  it('is marked failed when its agent process is killed, and respawn resumes the same conversation', async () => {
    await t.ok(['dispatch', `${agent}: remember the word banana`, '--agent', agent, '--name', 'k9'], {
      cwd: repo,
    });
    const ready = await t.waitForState('k9', 'ready_for_review', WAIT);
    // The transcript is saved shortly after each message; the next turn proves it is on disk.
    await t.ok(['reply', 'k9', `${agent}: which word was it`]);
    await t.waitForEvent('k9', (e) => e.type === 'message.added' && e.text === 'The word was banana.', WAIT);
    await t.waitForState('k9', 'ready_for_review', WAIT);
    process.kill(agentChildPid(ready.hostPid!), 'SIGKILL');
    const failed = await t.waitForState('k9', 'failed', WAIT);
    expect(failed.reason?.kind).toBe('error');

    await t.ok(['respawn', 'k9']);
    await t.waitForEvent('k9', (e) => e.type === 'session.started' && e.resumed, WAIT);
    await t.waitForState('k9', 'ready_for_review', WAIT);
    const before = server.requestsFor(`${agent}: which word was it`).length;
    await t.ok(['reply', 'k9', `${agent}: which word was it`]);
    await t.waitForEvent(
      'k9',
      (e) => e.type === 'message.added' && e.text === 'The word was banana.' && e.seq > failed.lastSeq,
      WAIT,
    );
    const resumed = server.requestsFor(`${agent}: which word was it`).slice(before).at(-1)!;
    // The resumed conversation still holds the first turn.
    expect(resumed.text).toContain('I will remember banana.');
  });
});

describe('several real agents at once', () => {
  shareAgentsHome();

  it('runs two claude and two codex sessions side by side, each in its own worktree', async () => {
    const names: string[] = [];
    for (const agent of ['claude', 'codex'] as const) {
      for (const n of [1, 2]) {
        const name = `${agent}-${n}`;
        names.push(name);
        await t.ok(['dispatch', `${agent}: parallel ${n}`, '--agent', agent, '--name', name], { cwd: repo });
      }
    }
    for (const name of names) await t.waitForState(name, 'needs_input', WAIT);
    expect((await t.json<SessionView[]>(['ls'])).filter((s) => s.state === 'needs_input')).toHaveLength(4);
    for (const name of names) await t.ok(['approve', name]);
    for (const name of names) {
      const done = await t.waitForState(name, 'ready_for_review', WAIT);
      expect(readFileSync(join(done.worktree, 'parallel.txt'), 'utf8')).toBe(`${name}\n`);
    }
    const worktrees = (await t.json<SessionView[]>(['ls'])).map((s) => s.worktree);
    expect(new Set(worktrees).size).toBe(4);
    expect(existsSync(join(repo, 'parallel.txt'))).toBe(false);
  });
});
