/**
 * End to end with the real `codex` binary (the @openai/codex devDependency) driven over
 * `codex app-server` against the scripted model harness.server. HOME and CODEX_HOME are temp folders.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installedCodexPath, codexEnv, type Scenario } from '../../../test/support/model-server/index.js';
import { adapterHarness } from '../../../test/support/adapter-harness.js';
import { watchProcesses } from '../../../test/support/process.js';
import { waitForEvent, within } from '../../../test/support/wait.js';
import type { AgentEvent } from '../types.js';
import { codexAgent, type CodexRun } from './index.js';
import { CONTINUE_PROMPT } from './run.js';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const is =
  <T extends AgentEvent['type']>(type: T, extra: (e: EventOf<T>) => boolean = () => true) =>
  (e: AgentEvent): e is EventOf<T> =>
    e.type === type && extra(e as EventOf<T>);
const completed = is('turn.completed');

const patch = (body: string): string => `*** Begin Patch\n${body}*** End Patch\n`;
/** What the long command writes if it is not really ended; unique, so its processes can be found. */
const LATE = `late-${randomUUID()}.txt`;
const escalated = (cmd: string) => ({
  cmd,
  sandbox_permissions: 'require_escalated',
  justification: 'needs your approval',
});

const scenarios: Scenario[] = [
  {
    prompt: 'write edit run',
    steps: [
      { tools: [{ name: 'apply_patch', input: patch('*** Add File: notes.txt\n+alpha\n') }] },
      { tools: [{ name: 'apply_patch', input: patch('*** Update File: notes.txt\n@@\n-alpha\n+beta\n') }] },
      { tools: [{ name: 'exec_command', input: { cmd: 'cat notes.txt > ran.txt' } }] },
      { text: 'Finished the notes.' },
    ],
  },
  {
    prompt: 'approve a command',
    steps: [
      { tools: [{ name: 'exec_command', input: escalated('echo yes > approved.txt') }] },
      { text: 'Ran it.' },
    ],
  },
  {
    prompt: 'deny a command',
    steps: [
      { tools: [{ name: 'exec_command', input: escalated('echo no > denied.txt') }] },
      { text: 'I will not run it.' },
    ],
  },
  { prompt: 'first question', steps: [{ text: 'First answer.' }] },
  { prompt: 'second question', steps: [{ text: 'Second answer.' }] },
  {
    prompt: 'run a long command',
    steps: [
      {
        tools: [
          { name: 'exec_command', input: { cmd: `sleep 30; echo late > ${LATE}`, yield_time_ms: 60_000 } },
        ],
      },
      { text: 'Slept.' },
    ],
  },
  {
    prompt: 'start then wait long',
    steps: [
      { tools: [{ name: 'exec_command', input: { cmd: 'echo started > started.txt' } }] },
      { tools: [{ name: 'exec_command', input: { cmd: 'sleep 30', yield_time_ms: 60_000 } }] },
      { text: 'Waited.' },
    ],
  },
  { prompt: 'fail with 500', steps: [{ error: { status: 500, message: 'scripted overload' } }] },
  { prompt: 'fail with 400', steps: [{ error: { status: 400, message: 'scripted bad request' } }] },
  { prompt: 'remember the word banana', steps: [{ text: 'I will remember banana.' }] },
  { prompt: 'what was the word', steps: [{ text: 'The word was banana.' }] },
  { prompt: CONTINUE_PROMPT, steps: [{ text: 'Continuing after the restart.' }] },
  { prompt: 'say hello', steps: [{ text: 'Hello.' }] },
  { prompt: 'follow the project rules', steps: [{ text: 'Following them.' }] },
];

/** What codex sent after the model's last tool call: the call's output and anything added to the turn. */
function itemsAfterLastCall(body: unknown): string {
  const input = (body as { input: { type?: string }[] }).input;
  const calls = input.map((item, i) => (item.type === 'function_call' ? i : -1)).filter((i) => i >= 0);
  return JSON.stringify(input.slice(calls.at(-1) ?? 0));
}

const harness = adapterHarness<CodexRun>({
  adapter: codexAgent,
  scenarios,
  executableOption: 'codexPath',
  defaultExecutable: installedCodexPath,
  env: (url, home) => codexEnv({ url, home }),
});
const start = harness.start.bind(harness);

describe('the codex adapter with the real codex binary', () => {
  it('writes, edits and runs a command in its folder, and reports tools, files and usage', async () => {
    const { events } = await start('write edit run');
    expect(await waitForEvent(events, completed)).toEqual({ type: 'turn.completed', outcome: 'success' });
    expect(readFileSync(join(harness.workspace.repo, 'notes.txt'), 'utf8')).toBe('beta\n');
    expect(readFileSync(join(harness.workspace.repo, 'ran.txt'), 'utf8')).toBe('beta\n');

    expect(events.events[0]?.type).toBe('turn.started');
    expect(events.events.map((e) => e.type)).toContain('agent.identified');
    const started = events.events.filter(is('tool.started'));
    expect(started.map((e) => [e.tool, e.kind, e.input])).toEqual([
      ['apply_patch', 'edit', 'notes.txt'],
      ['apply_patch', 'edit', 'notes.txt'],
      ['shell', 'run', 'cat notes.txt > ran.txt'],
    ]);
    const finished = events.events.filter(is('tool.finished'));
    expect(finished.map((e) => [e.tool, e.ok])).toEqual([
      ['apply_patch', true],
      ['apply_patch', true],
      ['shell', true],
    ]);
    expect(finished[0]!.files).toEqual(['notes.txt']);
    expect(finished[2]!.exitCode).toBe(0);
    expect(events.events.filter(is('message.added')).at(-1)?.text).toBe('Finished the notes.');

    const usage = events.events.filter(is('usage.reported'));
    expect(usage.reduce((n, u) => n + u.inputTokens, 0)).toBe(400);
    expect(usage.reduce((n, u) => n + u.outputTokens, 0)).toBe(80);
    expect(harness.server.failures).toEqual([]);
  });

  it('keeps writes outside the worktree out of reach of the sandbox', async () => {
    harness.newWorkspace();
    const outside = join(harness.workspace.root, 'outside.txt');
    const local: Scenario = {
      prompt: `write outside ${outside}`,
      steps: [
        { tools: [{ name: 'exec_command', input: { cmd: `echo x > ${outside}` } }] },
        { text: 'Tried.' },
      ],
    };
    scenarios.push(local);
    const { events } = await start(local.prompt, { fresh: false });
    await waitForEvent(events, completed);
    expect(existsSync(outside)).toBe(false);
    // Codex reports no item for a command the sandbox stopped; the model is told, though.
    expect(harness.server.requestsFor(local.prompt).at(-1)!.text).toContain('Read-only file system');
  });

  it('holds a command for approval and runs it once allowed', async () => {
    const { run, events } = await start('approve a command');
    const request = await waitForEvent(events, is('approval.requested'));
    expect(request).toMatchObject({
      tool: 'shell',
      kind: 'run',
      input: 'echo yes > approved.txt',
      reason: 'needs your approval',
    });
    expect(existsSync(join(harness.workspace.repo, 'approved.txt'))).toBe(false);
    expect(events.events.some(completed)).toBe(false);

    await run.resolveApproval(request.requestId, { decision: 'allow' });
    expect(await waitForEvent(events, completed)).toMatchObject({ outcome: 'success' });
    expect(readFileSync(join(harness.workspace.repo, 'approved.txt'), 'utf8')).toBe('yes\n');
  });

  it('does not run a declined command and the agent is told why', async () => {
    const { run, events } = await start('deny a command');
    const request = await waitForEvent(events, is('approval.requested'));
    await run.resolveApproval(request.requestId, { decision: 'deny', reason: 'not now' });
    expect(await waitForEvent(events, completed)).toMatchObject({ outcome: 'success' });
    expect(existsSync(join(harness.workspace.repo, 'denied.txt'))).toBe(false);
    const followUp = harness.server.requestsFor('deny a command').at(-1)!;
    expect(followUp.stepIndex).toBe(1);
    // The refusal on the wire has no words of its own: the reason must reach the model beside it.
    const afterCall = itemsAfterLastCall(followUp.body);
    expect(afterCall).toMatch(/"function_call_output".*rejected by user/);
    expect(afterCall).toContain('not now');
  });

  it('starts a second turn in the same thread for a reply', async () => {
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
    const { run, events } = await start('run a long command');
    await waitForEvent(
      events,
      is('tool.started', (e) => e.tool === 'shell'),
    );
    // The command's shell is found by the file name in its command line; it must be running now.
    await watchProcesses(LATE, 'present');
    await run.interrupt();
    const done = await waitForEvent(events, completed);
    expect(done.outcome).toBe('interrupted');

    await run.reply('say hello');
    const next = await waitForEvent(events, completed, 30_000, events.events.indexOf(done) + 1);
    expect(next.outcome).toBe('success');
    // Only once nothing that could still write the file is running does its absence mean anything:
    // the shell surviving its `sleep` would write it.
    await watchProcesses(LATE, 'gone');
    expect(existsSync(join(harness.workspace.repo, LATE))).toBe(false);
  });

  it.each([
    [500, 'internalServerError'],
    [400, 'scripted bad request'],
  ])('ends the turn in error when the model API answers %i', async (status, visible) => {
    const { events } = await start(`fail with ${status}`);
    const done = await waitForEvent(events, completed);
    expect(done.outcome).toBe('error');
    expect(done.error).toContain(visible);
  });

  it('reports a killed codex process as a failed turn and resumes the thread afterwards', async () => {
    const first = await start('start then wait long');
    const identified = await waitForEvent(first.events, is('agent.identified'));
    await waitForEvent(
      first.events,
      is('tool.started', (e) => e.input === 'sleep 30'),
    );
    process.kill(first.run.pid!, 'SIGKILL');
    const exit = await within(first.run.exited, 15_000, 'exited after kill -9');
    expect(exit.error).toMatch(/SIGKILL/);
    expect(first.events.events.find(completed)).toMatchObject({ outcome: 'error' });
    expect(first.events.events.find(is('error.raised', (e) => e.fatal))).toBeDefined();

    const second = await start('ignored on resume', { resumeId: identified.agentSessionId, fresh: false });
    expect(await waitForEvent(second.events, completed)).toMatchObject({ outcome: 'success' });
    expect(second.events.events.find(is('turn.started'))?.prompt).toBe(CONTINUE_PROMPT);
    expect(harness.server.requestsFor(CONTINUE_PROMPT).at(-1)!.text).toContain('echo started > started.txt');
  });

  it('resumes a finished thread from its id in a new process', async () => {
    const first = await start('remember the word banana');
    const identified = await waitForEvent(first.events, is('agent.identified'));
    await waitForEvent(first.events, completed);
    await first.run.close();
    expect(await first.run.exited).toEqual({});

    const second = await start('ignored on resume', { resumeId: identified.agentSessionId, fresh: false });
    expect((await waitForEvent(second.events, is('agent.identified'))).agentSessionId).toBe(
      identified.agentSessionId,
    );
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

  it('reports malformed and truncated output lines as errors and carries on', async () => {
    harness.newWorkspace();
    const real = installedCodexPath();
    const wrapper = harness.workspace.script(
      'noisy-codex',
      `echo 'this is not json'\necho '{"method":"item/sta'\nexec '${real}' "$@"`,
    );
    const { events } = await start('say hello', { executable: wrapper, fresh: false });
    expect(await waitForEvent(events, completed)).toMatchObject({ outcome: 'success' });
    const malformed = events.events.filter(is('error.raised', (e) => e.message.includes('malformed')));
    expect(malformed.map((e) => e.detail)).toEqual(['this is not json', '{"method":"item/sta']);
  });

  it('reports a line cut off when codex dies', async () => {
    harness.newWorkspace();
    const wrapper = harness.workspace.script(
      'dying-codex',
      `printf '{"id":1,"result":{"userAgent":"x"'\nexit 3`,
    );
    const { run, events } = await start('say hello', { executable: wrapper, fresh: false });
    const exit = await within(run.exited, 15_000, 'exited');
    expect(exit.error).toMatch(/code 3/);
    expect(events.events.find(is('error.raised', (e) => e.message.includes('truncated')))).toBeDefined();
    expect(events.events.find(completed)).toMatchObject({ outcome: 'error' });
  });
});

describe('codex adapter options', () => {
  it('refuses a codexPath that is not an executable, saying how to install codex', () => {
    expect(() => codexAgent.validateOptions({ codexPath: '/nonexistent/codex' }, '/')).toThrow(
      /Install Codex/,
    );
    expect(() => codexAgent.validateOptions({ bogus: 1 }, '/')).toThrow(/Unknown option/);
  });
});

describe("the user's own Codex setup", () => {
  it("reads the repository's AGENTS.md and gets Baton's instructions as developer instructions", async () => {
    const ws = harness.newWorkspace();
    writeFileSync(join(ws.repo, 'AGENTS.md'), 'Project rule: the magic word is OSPREY-9.\n');
    const { events } = await start('follow the project rules', {
      fresh: false,
      instructions: 'Baton says: work in worktree W-77.',
    });
    expect(await waitForEvent(events, is('turn.completed'))).toMatchObject({ outcome: 'success' });
    const request = harness.server.requestsFor('follow the project rules').at(-1)!;
    expect(request.text).toContain('OSPREY-9');
    expect(request.text).toContain('Baton says: work in worktree W-77.');
    expect(readFileSync(join(ws.repo, 'AGENTS.md'), 'utf8')).toBe(
      'Project rule: the magic word is OSPREY-9.\n',
    );
  });

  it('reads no AGENTS.md when the repository turns the project source off', async () => {
    const ws = harness.newWorkspace();
    writeFileSync(join(ws.repo, 'AGENTS.md'), 'Project rule: the magic word is OSPREY-9.\n');
    const { events } = await start('follow the project rules', { fresh: false, settingSources: ['user'] });
    expect(await waitForEvent(events, is('turn.completed'))).toMatchObject({ outcome: 'success' });
    expect(harness.server.requestsFor('follow the project rules').at(-1)!.text).not.toContain('OSPREY-9');
  });
});
