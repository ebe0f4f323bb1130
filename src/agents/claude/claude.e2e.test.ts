/**
 * End to end with the real `claude` binary (the one the Agent SDK installs) against the scripted
 * model harness.server. HOME is a temp folder per test; nothing leaves 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledClaudePath, claudeEnv, type Scenario } from '../../../test/support/model-server/index.js';
import { adapterHarness } from '../../../test/support/adapter-harness.js';
import { waitForFileContaining, watchProcesses } from '../../../test/support/process.js';
import { waitForEvent, within } from '../../../test/support/wait.js';
import type { AgentEvent } from '../types.js';
import { claudeAgent, type ClaudeRun } from './index.js';
import { CONTINUE_PROMPT } from './run.js';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const is =
  <T extends AgentEvent['type']>(type: T, extra: (e: EventOf<T>) => boolean = () => true) =>
  (e: AgentEvent): e is EventOf<T> =>
    e.type === type && extra(e as EventOf<T>);

const LONG_WAIT = 'node -e "setTimeout(() => {}, 30000)"';
/** What the long command writes if it is not really ended; unique, so its processes can be found. */
const LATE = `late-${randomUUID()}.txt`;

const scenarios: Scenario[] = [
  {
    prompt: 'write edit run',
    steps: [
      { tools: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'alpha\n' } }] },
      {
        tools: [{ name: 'Edit', input: { file_path: 'notes.txt', old_string: 'alpha', new_string: 'beta' } }],
      },
      { tools: [{ name: 'Bash', input: { command: 'cat notes.txt > ran.txt', description: 'copy' } }] },
      { text: 'Finished the notes.' },
    ],
  },
  {
    prompt: 'approve a command',
    steps: [
      {
        tools: [{ name: 'Bash', input: { command: 'echo yes > approved.txt', description: 'write marker' } }],
      },
      { text: 'Ran it.' },
    ],
  },
  {
    prompt: 'deny a command',
    steps: [
      { tools: [{ name: 'Bash', input: { command: 'echo no > denied.txt', description: 'write marker' } }] },
      { text: 'I will not run it.' },
    ],
  },
  { prompt: 'first question', steps: [{ text: 'First answer.' }] },
  { prompt: 'second question', steps: [{ text: 'Second answer.' }] },
  {
    prompt: 'run a long command',
    // Claude Code blocks long `sleep` commands (it wants background tasks), so these waits are not sleeps.
    steps: [
      {
        tools: [
          { name: 'Bash', input: { command: `${LONG_WAIT} && echo late > ${LATE}`, description: 'wait' } },
        ],
      },
      { text: 'Slept.' },
    ],
  },
  {
    prompt: 'start then wait long',
    steps: [
      { tools: [{ name: 'Bash', input: { command: 'echo started > started.txt', description: 'mark' } }] },
      { tools: [{ name: 'Bash', input: { command: LONG_WAIT, description: 'wait' } }] },
      { text: 'Waited.' },
    ],
  },
  { prompt: 'fail with 500', steps: [{ error: { status: 500, message: 'scripted overload' } }] },
  { prompt: 'fail with 400', steps: [{ error: { status: 400, message: 'scripted bad request' } }] },
  { prompt: 'remember the word banana', steps: [{ text: 'I will remember banana.' }] },
  { prompt: 'what was the word', steps: [{ text: 'The word was banana.' }] },
  { prompt: CONTINUE_PROMPT, steps: [{ text: 'Continuing after the restart.' }] },
  { prompt: 'say hello', steps: [{ text: 'Hello.' }] },
  {
    prompt: 'use the project setup',
    steps: [
      {
        tools: [
          { name: 'Bash', input: { command: 'npm --version', description: 'allowed by the repository' } },
        ],
      },
      { text: 'Used it.' },
    ],
  },
];

const harness = adapterHarness<ClaudeRun>({
  adapter: claudeAgent,
  scenarios,
  executableOption: 'claudePath',
  defaultExecutable: bundledClaudePath,
  env: (url, home) => claudeEnv({ url, home }),
});
const start = harness.start.bind(harness);

const completed = is('turn.completed');

describe('the claude adapter with the real claude binary', () => {
  it('writes, edits and runs a command in its folder, and reports tools, files and usage', async () => {
    const { events } = await start('write edit run', { autoApprove: true });
    const done = await waitForEvent(events, completed);
    expect(done).toEqual({ type: 'turn.completed', outcome: 'success' });
    expect(readFileSync(join(harness.workspace.repo, 'notes.txt'), 'utf8')).toBe('beta\n');
    expect(readFileSync(join(harness.workspace.repo, 'ran.txt'), 'utf8')).toBe('beta\n');

    const types = events.events.map((e) => e.type);
    expect(types[0]).toBe('turn.started');
    expect(types).toContain('agent.identified');
    const started = events.events.filter(is('tool.started'));
    expect(started.map((e) => [e.tool, e.kind])).toEqual([
      ['Write', 'edit'],
      ['Edit', 'edit'],
      ['Bash', 'run'],
    ]);
    expect(started[0]!.files).toEqual(['notes.txt']);
    const finished = events.events.filter(is('tool.finished'));
    expect(finished.map((e) => [e.tool, e.ok])).toEqual([
      ['Write', true],
      ['Edit', true],
      ['Bash', true],
    ]);
    expect(finished[1]!.files).toEqual(['notes.txt']);
    expect(events.events.filter(is('message.added')).at(-1)?.text).toBe('Finished the notes.');

    const usage = events.events.filter(is('usage.reported'));
    expect(usage.reduce((n, u) => n + u.inputTokens, 0)).toBe(400);
    expect(usage.reduce((n, u) => n + u.outputTokens, 0)).toBe(80);
    expect(usage.reduce((n, u) => n + (u.costUsd ?? 0), 0)).toBeGreaterThan(0);
    expect(harness.server.failures).toEqual([]);
  });

  it('holds a tool call for approval and runs it once allowed', async () => {
    const { run, events } = await start('approve a command');
    const request = await waitForEvent(events, is('approval.requested'));
    expect(request).toMatchObject({ tool: 'Bash', kind: 'run', input: 'echo yes > approved.txt' });
    expect(existsSync(join(harness.workspace.repo, 'approved.txt'))).toBe(false);
    expect(events.events.some(completed)).toBe(false);

    await run.resolveApproval(request.requestId, { decision: 'allow' });
    expect(await waitForEvent(events, completed)).toMatchObject({ outcome: 'success' });
    expect(readFileSync(join(harness.workspace.repo, 'approved.txt'), 'utf8')).toBe('yes\n');
    expect(events.events.find(is('tool.finished'))).toMatchObject({ tool: 'Bash', ok: true });
  });

  it('does not run a denied tool call and tells the agent why', async () => {
    const { run, events } = await start('deny a command');
    const request = await waitForEvent(events, is('approval.requested'));
    await run.resolveApproval(request.requestId, { decision: 'deny', reason: 'not on this branch' });
    expect(await waitForEvent(events, completed)).toMatchObject({ outcome: 'success' });
    expect(existsSync(join(harness.workspace.repo, 'denied.txt'))).toBe(false);
    expect(events.events.find(is('tool.finished'))).toMatchObject({ tool: 'Bash', ok: false });
    const followUp = harness.server.requestsFor('deny a command').at(-1)!;
    expect(followUp.stepIndex).toBe(1);
    expect(followUp.text).toContain('not on this branch');
  });

  it('starts a second turn in the same conversation for a reply', async () => {
    const { run, events } = await start('first question');
    await waitForEvent(events, completed);
    await run.reply('second question');
    const second = await waitForEvent(events, completed, 30_000, events.events.findIndex(completed) + 1);
    expect(second.outcome).toBe('success');
    expect(events.events.filter(is('turn.started')).map((e) => e.prompt)).toEqual([
      'first question',
      'second question',
    ]);
    expect(events.events.filter(is('message.added')).map((e) => e.text)).toEqual([
      'First answer.',
      'Second answer.',
    ]);
    expect(harness.server.requestsFor('second question').at(-1)!.text).toContain('First answer.');
  });

  it('interrupts a long command, ends the turn as interrupted and stays usable', async () => {
    const { run, events } = await start('run a long command', { autoApprove: true });
    await waitForEvent(
      events,
      is('tool.started', (e) => e.tool === 'Bash'),
    );
    // The command's shell is found by the file name in its command line; it must be running now.
    await watchProcesses(LATE, 'present');
    await run.interrupt();
    const done = await waitForEvent(events, completed);
    expect(done.outcome).toBe('interrupted');
    const finished = events.events.find(is('tool.finished'));
    expect(finished).toMatchObject({ ok: false });
    // Really interrupted while running, not refused up front.
    expect(finished?.output ?? '').not.toMatch(/Blocked/);

    await run.reply('say hello');
    const next = await waitForEvent(events, completed, 30_000, events.events.indexOf(done) + 1);
    expect(next.outcome).toBe('success');
    // Only once nothing that could still write the file is running does its absence mean anything.
    await watchProcesses(LATE, 'gone');
    expect(existsSync(join(harness.workspace.repo, LATE))).toBe(false);
  });

  it.each([
    [500, 'scripted overload'],
    [400, 'scripted bad request'],
  ])('ends the turn in error when the model API answers %i', async (status, message) => {
    const { events } = await start(`fail with ${status}`);
    const done = await waitForEvent(events, completed);
    expect(done.outcome).toBe('error');
    expect(done.error).toContain(String(status));
    expect(done.error).toContain(message);
  });

  it('reports a killed claude process as a failed turn and resumes the conversation afterwards', async () => {
    const first = await start('start then wait long', { autoApprove: true });
    const identified = await waitForEvent(first.events, is('agent.identified'));
    await waitForEvent(
      first.events,
      is('tool.started', (e) => e.input === LONG_WAIT),
    );
    // Claude writes its transcript on its own schedule; the resume can only replay what reached it.
    await waitForFileContaining(
      join(harness.workspace.home, '.claude', 'projects'),
      `${identified.agentSessionId}.jsonl`,
      'started.txt',
    );
    process.kill(first.run.pid!, 'SIGKILL');
    const exit = await within(first.run.exited, 15_000, 'exited after kill -9');
    expect(exit.error).toMatch(/SIGKILL/);
    expect(first.events.events.find(completed)).toMatchObject({ outcome: 'error' });
    expect(first.events.events.find(is('error.raised', (e) => e.fatal))).toBeDefined();

    const second = await start('ignored on resume', { resumeId: identified.agentSessionId, fresh: false });
    const done = await waitForEvent(second.events, completed);
    expect(done.outcome).toBe('success');
    expect(second.events.events.find(is('turn.started'))?.prompt).toBe(CONTINUE_PROMPT);
    const resumed = harness.server.requestsFor(CONTINUE_PROMPT).at(-1)!;
    expect(resumed.text).toContain('echo started > started.txt');
  });

  it('resumes a finished conversation from its session id in a new process', async () => {
    const first = await start('remember the word banana');
    const identified = await waitForEvent(first.events, is('agent.identified'));
    await waitForEvent(first.events, completed);
    await first.run.close();
    expect(await first.run.exited).toEqual({});

    const second = await start('ignored on resume', { resumeId: identified.agentSessionId, fresh: false });
    await waitForEvent(second.events, completed);
    await second.run.reply('what was the word');
    await waitForEvent(
      second.events,
      is('message.added', (e) => e.text === 'The word was banana.'),
    );
    const request = harness.server.requestsFor('what was the word').at(-1)!;
    expect(request.text).toContain('remember the word banana');
    expect(request.text).toContain('I will remember banana.');
  });

  it('starts the task afresh when a resumed conversation was never written down', async () => {
    harness.newWorkspace();
    // A turn was open as far as Baton knew, so the resume tries to continue it.
    writeFileSync(
      join(harness.workspace.stateDir, 'claude.json'),
      JSON.stringify({ turnOpen: true, usage: {} }),
    );
    const second = await start('say hello', {
      resumeId: '00000000-0000-4000-8000-000000000000',
      fresh: false,
    });
    expect(await waitForEvent(second.events, is('turn.completed'))).toMatchObject({ outcome: 'success' });
    expect(second.events.events.find(is('error.raised'))?.message).toMatch(/could not be resumed/);
    const ids = second.events.events.filter(is('agent.identified')).map((e) => e.agentSessionId);
    expect(ids[0]).toBe('00000000-0000-4000-8000-000000000000');
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('reports malformed and truncated output lines as errors and carries on', async () => {
    harness.newWorkspace();
    const wrapper = harness.workspace.script(
      'noisy-claude',
      `echo 'this is not json'\necho '{"type":"assistant","mess'\nexec '${bundledClaudePath()}' "$@"`,
    );
    const { events } = await start('say hello', { executable: wrapper, fresh: false });
    expect(await waitForEvent(events, completed)).toMatchObject({ outcome: 'success' });
    const malformed = events.events.filter(is('error.raised', (e) => e.message.includes('malformed')));
    expect(malformed.map((e) => e.detail)).toEqual(['this is not json', '{"type":"assistant","mess']);
    expect(malformed.every((e) => !e.fatal)).toBe(true);
  });
});

describe("the user's own Claude Code setup", () => {
  /** A repository CLAUDE.md and a `.claude/settings.json` allow rule, as a user would have them. */
  const projectSetup = (): void => {
    const ws = harness.newWorkspace();
    writeFileSync(join(ws.repo, 'CLAUDE.md'), 'Project rule: the magic word is PELICAN-7.\n');
    mkdirSync(join(ws.repo, '.claude'), { recursive: true });
    writeFileSync(
      join(ws.repo, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash(npm --version)'] } }),
    );
    mkdirSync(join(ws.home, '.claude'), { recursive: true });
    writeFileSync(join(ws.home, '.claude', 'CLAUDE.md'), 'User rule: sign off as HERON-3.\n');
    // The user has trusted this folder in their own Claude Code, as anyone who uses it there has.
    writeFileSync(
      join(ws.home, '.claude.json'),
      JSON.stringify({ projects: { [ws.repo]: { hasTrustDialogAccepted: true } } }),
    );
  };

  it("loads the repository's CLAUDE.md and settings and the user's own, runs what they allow without asking, and appends Baton's instructions", async () => {
    projectSetup();
    const { events } = await start('use the project setup', {
      fresh: false,
      instructions: 'Baton says: work in worktree W-42.',
    });
    expect(await waitForEvent(events, completed)).toMatchObject({ outcome: 'success' });
    expect(events.events.some(is('approval.requested'))).toBe(false);
    expect(events.events.find(is('tool.finished'))).toMatchObject({
      tool: 'Bash',
      ok: true,
      output: expect.stringMatching(/^\d+\.\d+/),
    });
    const first = harness.server.requestsFor('use the project setup')[0]!;
    expect(first.text).toContain('PELICAN-7');
    expect(first.text).toContain('HERON-3');
    expect(first.text).toContain('Baton says: work in worktree W-42.');
    // Appended to Claude Code's own system prompt, not in place of it.
    expect(JSON.stringify((first.body as { system?: unknown }).system)).toMatch(/Claude/);
    // Nothing was written into the user's files.
    expect(readFileSync(join(harness.workspace.repo, 'CLAUDE.md'), 'utf8')).toBe(
      'Project rule: the magic word is PELICAN-7.\n',
    );
  });

  it('loads none of it when the repository turns the setting sources off, and the command then asks', async () => {
    projectSetup();
    const { run, events } = await start('use the project setup', { fresh: false, settingSources: [] });
    const request = await waitForEvent(events, is('approval.requested'));
    await run.resolveApproval(request.requestId, { decision: 'allow' });
    expect(await waitForEvent(events, completed)).toMatchObject({ outcome: 'success' });
    const first = harness.server.requestsFor('use the project setup').at(-2)!;
    expect(first.text).not.toContain('PELICAN-7');
    expect(first.text).not.toContain('HERON-3');
  });
});

describe('claude adapter options', () => {
  it('refuses a claudePath that is not an executable, saying how to install claude', () => {
    expect(() => claudeAgent.validateOptions({ claudePath: '/nonexistent/claude' }, '/')).toThrow(
      /Install Claude Code/,
    );
    expect(() => claudeAgent.validateOptions({ bogus: 1 }, '/')).toThrow(/Unknown option/);
  });
});
