/**
 * End to end with real Agent Client Protocol agents — Gemini CLI (`@google/gemini-cli`) and
 * opencode (`opencode-ai`) — driven by Baton's ACP adapter against the scripted model server
 * (Gemini's `streamGenerateContent`; an OpenAI-compatible Chat Completions provider for
 * opencode). HOME and the XDG folders are temp folders; nothing leaves 127.0.0.1.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpAdapter, BUILTIN_ACP_AGENTS, type AcpRun } from '../../src/agents/acp/index.js';
import { pathOption } from '../../src/agents/acp/index.js';
import type { AgentEvent, ToolGate } from '../../src/agents/types.js';
import { adapterHarness } from '../support/adapter-harness.js';
import {
  geminiEnv,
  installedGeminiPath,
  installedOpencodePath,
  opencodeEnv,
  type Scenario,
  type Step,
} from '../support/model-server/index.js';
import { waitForEvent } from '../support/wait.js';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const is =
  <T extends AgentEvent['type']>(type: T, extra: (e: EventOf<T>) => boolean = () => true) =>
  (e: AgentEvent): e is EventOf<T> =>
    e.type === type && extra(e as EventOf<T>);
const completed = is('turn.completed');

interface AcpCase {
  name: 'gemini' | 'opencode';
  executable: () => string;
  env: (url: string, home: string) => NodeJS.ProcessEnv;
  /** Whether the model is asked again after a denial (opencode ends the turn there). */
  goesOnAfterDenial: boolean;
  /** Whether `session/load` brings the conversation back (Gemini CLI 0.61's wipes the session it loads). */
  loads: boolean;
  /** The agent's own tool calls, as its model makes them. */
  write: (path: string, content: string) => Step;
  run: (command: string) => Step;
}

const CASES: AcpCase[] = [
  {
    name: 'gemini',
    executable: installedGeminiPath,
    loads: false,
    goesOnAfterDenial: true,
    env: (url, home) => geminiEnv({ url, home }),
    write: (path, content) => ({ tools: [{ name: 'write_file', input: { file_path: path, content } }] }),
    run: (command) => ({
      tools: [{ name: 'run_shell_command', input: { command, description: 'a command' } }],
    }),
  },
  {
    name: 'opencode',
    executable: installedOpencodePath,
    loads: true,
    goesOnAfterDenial: false,
    env: (url, home) => opencodeEnv({ url, home }),
    write: (path, content) => ({ tools: [{ name: 'write', input: { filePath: path, content } }] }),
    run: (command) => ({ tools: [{ name: 'bash', input: { command, description: 'a command' } }] }),
  },
];

/**
 * How long an event may take. The agents start slowly (opencode ~10 s to its first answer on an
 * idle machine, several times that on a busy one): each wait is on an event, this is only its cap.
 */
const WAIT = 180_000;

const NO_RM: ToolGate = (call) =>
  call.command?.includes('rm -rf') === true
    ? { action: 'block', rule: 'no-rm-rf', why: 'it deletes a tree', suggest: 'delete single files' }
    : { action: 'allow' };

for (const agent of CASES) {
  const scenarios: Scenario[] = [
    { prompt: 'say hello', steps: [{ text: 'Hello.', usage: { input: 120, output: 30 } }] },
    { prompt: 'write a file', steps: [agent.write('approved.txt', 'yes\n'), { text: 'Wrote it.' }] },
    { prompt: 'run a command', steps: [agent.run('echo no > denied.txt'), { text: 'Did not run it.' }] },
    { prompt: 'wait for approval', steps: [agent.run('echo late > late.txt'), { text: 'Ran it.' }] },
    { prompt: 'delete everything', steps: [agent.run('rm -rf src'), { text: 'Blocked.' }] },
    { prompt: 'fail with 400', steps: [{ error: { status: 400, message: 'scripted bad request' } }] },
    { prompt: 'remember the word banana', steps: [{ text: 'I will remember banana.' }] },
    { prompt: 'what was the word', steps: [{ text: 'The word was banana.' }] },
  ];
  const entry = BUILTIN_ACP_AGENTS.find((a) => a.name === agent.name)!;

  describe(`the ACP adapter with the real ${agent.name}`, { timeout: 2 * WAIT }, () => {
    const harness = adapterHarness<AcpRun>({
      adapter: acpAdapter(entry),
      scenarios,
      executableOption: pathOption(entry),
      defaultExecutable: agent.executable,
      env: agent.env,
    });
    const start = harness.start.bind(harness);
    /** This turn's events: those from index `from` of the kept conversation's. */
    const since = (events: { events: AgentEvent[] }, from: number): AgentEvent[] => events.events.slice(from);

    // The next five cases are turns of one conversation in one agent process, in this order
    // (decision 434): each needs only a conversation at rest, which a fresh process would give
    // again at its start cost (opencode: ~6 s of CPU to answer initialize and session/new). Each
    // reads only its own turn's events; one that fails ends the conversation for the next.
    it('runs a plain turn: its answer, its session id and its usage', async () => {
      const { events, from } = await harness.turn('say hello');
      expect(await waitForEvent(events, completed, WAIT, from)).toEqual({
        type: 'turn.completed',
        outcome: 'success',
      });
      const turn = since(events, from);
      expect(turn[0]).toEqual({ type: 'turn.started', prompt: 'say hello' });
      expect(events.events.find(is('agent.identified'))?.agentSessionId).toMatch(/\S/);
      expect(turn.filter(is('message.added')).map((e) => e.text)).toEqual(['Hello.']);
      const usage = turn.filter(is('usage.reported'));
      expect(usage.reduce((n, u) => n + u.inputTokens + (u.cacheReadTokens ?? 0), 0)).toBe(120);
      expect(usage.reduce((n, u) => n + u.outputTokens, 0)).toBe(30);
    });

    it('holds an edit for approval and writes the file once allowed', async () => {
      const { run, events, from, workspace } = await harness.turn('write a file');
      const request = await waitForEvent(events, is('approval.requested'), WAIT, from);
      expect(request).toMatchObject({ kind: 'edit' });
      expect(existsSync(join(workspace.repo, 'approved.txt'))).toBe(false);
      expect(since(events, from).some(completed)).toBe(false);
      await run.resolveApproval(request.requestId, { decision: 'allow' });
      expect(await waitForEvent(events, completed, WAIT, from)).toMatchObject({ outcome: 'success' });
      expect(readFileSync(join(workspace.repo, 'approved.txt'), 'utf8')).toBe('yes\n');
      const finished = since(events, from).find(is('tool.finished'));
      expect(finished).toMatchObject({ toolId: request.requestId, ok: true });
      expect(finished?.files).toContain('approved.txt');
    });

    it('does not run a denied command, and the turn ends well', async () => {
      const { run, events, from, workspace } = await harness.turn('run a command');
      const request = await waitForEvent(events, is('approval.requested'), WAIT, from);
      expect(request).toMatchObject({ kind: 'run', input: 'echo no > denied.txt' });
      await run.resolveApproval(request.requestId, { decision: 'deny' });
      expect(await waitForEvent(events, completed, WAIT, from)).toMatchObject({ outcome: 'success' });
      expect(existsSync(join(workspace.repo, 'denied.txt'))).toBe(false);
      expect(since(events, from).find(is('tool.finished'))).toMatchObject({ ok: false });
      // Gemini CLI tells its model of the refusal; opencode ends the turn on it.
      expect(harness.server.requestsFor('run a command').at(-1)!.stepIndex).toBe(
        agent.goesOnAfterDenial ? 1 : 0,
      );
    });

    it('stops a turn waiting on an approval, and the conversation stays usable', async () => {
      const { run, events, from, workspace } = await harness.turn('wait for approval');
      await waitForEvent(events, is('approval.requested'), WAIT, from);
      await run.interrupt();
      const done = await waitForEvent(events, completed, WAIT, from);
      expect(done.outcome).toBe('interrupted');
      expect(existsSync(join(workspace.repo, 'late.txt'))).toBe(false);
      await run.reply('say hello');
      const next = await waitForEvent(events, completed, WAIT, events.events.indexOf(done) + 1);
      expect(next.outcome).toBe('success');
    });

    it('ends the turn in error when the model API answers 400', async () => {
      const { events, from } = await harness.turn('fail with 400');
      const done = await waitForEvent(events, completed, WAIT, from);
      expect(done.outcome).toBe('error');
      expect(done.error).toContain('scripted bad request');
    });

    it("refuses what Baton's gate blocks, even in bypass mode", async () => {
      const { events } = await start('delete everything', {
        permissionMode: 'bypassPermissions',
        gate: () => NO_RM,
      });
      expect(await waitForEvent(events, completed, WAIT)).toMatchObject({ outcome: 'success' });
      expect(events.events.find(is('tool.blocked'))).toMatchObject({ rule: 'no-rm-rf', input: 'rm -rf src' });
      expect(events.events.some(is('approval.requested'))).toBe(false);
    });

    // Each agent has the one of these two it can have: no test is registered to be skipped.
    if (agent.loads)
      it('resumes a finished conversation from its id in a new process (session/load)', async () => {
        // The kept conversation, ended here: the last of this file's cases that use it.
        const first = await harness.turn('remember the word banana');
        const identified = await waitForEvent(first.events, is('agent.identified'), WAIT);
        await waitForEvent(first.events, completed, WAIT, first.from);
        await first.run.close();
        expect(await first.run.exited).toEqual({});

        const second = await start('ignored on resume', {
          resumeId: identified.agentSessionId,
          workspace: first.workspace,
        });
        expect((await waitForEvent(second.events, is('agent.identified'), WAIT)).agentSessionId).toBe(
          identified.agentSessionId,
        );
        await waitForEvent(second.events, completed, WAIT);
        // The replayed history is not news: no message of the first run comes again.
        expect(
          second.events.events.some(is('message.added', (e) => e.text === 'I will remember banana.')),
        ).toBe(false);
        await second.run.reply('what was the word');
        await waitForEvent(
          second.events,
          is('message.added', (e) => e.text === 'The word was banana.'),
          WAIT,
        );
        const request = harness.server.requestsFor('what was the word').at(-1)!;
        expect(request.text).toContain('remember the word banana');
        expect(request.text).toContain('I will remember banana.');
      });

    if (!agent.loads)
      it('says so when the agent cannot load the session, and goes on in a new one', async () => {
        // The kept conversation, ended here: the last of this file's cases that use it.
        const first = await harness.turn('remember the word banana');
        await waitForEvent(first.events, is('agent.identified'), WAIT);
        await waitForEvent(first.events, completed, WAIT, first.from);
        await first.run.close();

        // A conversation the agent never had: whether it can load its own is its business (Gemini
        // CLI 0.61's load of a real one sometimes succeeds, sometimes wipes it), this one it cannot.
        const missing = '00000000-0000-4000-8000-000000000000';
        const second = await start('ignored on resume', { resumeId: missing, workspace: first.workspace });
        const said = await waitForEvent(second.events, is('error.raised'), WAIT);
        expect(said).toMatchObject({ fatal: false });
        expect(said.message).toContain(`could not load its session ${missing}`);
        const fresh = await waitForEvent(second.events, is('agent.identified'), WAIT);
        expect(fresh.agentSessionId).not.toBe(missing);
        await waitForEvent(second.events, completed, WAIT);
        await second.run.reply('what was the word');
        await waitForEvent(
          second.events,
          is('message.added', (e) => e.text === 'The word was banana.'),
          WAIT,
        );
      });
  });
}
