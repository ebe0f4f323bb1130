/**
 * The real `claude` and `codex` binaries calling Baton's MCP server — the one Baton attaches to
 * every session it starts — against the scripted model server: the scripted model calls the
 * `baton` server's tools as any model would, and each effect is checked where a person sees it.
 */
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BatonEvent } from '../../src/events/index.js';
import {
  realAgentsEnv,
  startModelServer,
  type ModelServer,
  type Scenario,
} from '../support/model-server/index.js';
import { sharedHome, TestBaton } from '../support/baton.js';

type Agent = 'claude' | 'codex';
const AGENTS: Agent[] = ['claude', 'codex'];

/** How each agent's model calls a tool of the `baton` MCP server. */
const TOOL: Record<Agent, (name: string) => { name: string; namespace?: string }> = {
  claude: (name) => ({ name: `mcp__baton__${name}` }),
  codex: (name) => ({ namespace: 'mcp__baton', name }),
};

/** How each agent's model runs a shell command. */
const SHELL: Record<Agent, (command: string) => { name: string; input: Record<string, string> }> = {
  claude: (command) => ({ name: 'Bash', input: { command, description: 'look around' } }),
  // Outside codex's own sandbox (it asks first), so the command surely runs, and in Baton's alone.
  codex: (command) => ({
    name: 'exec_command',
    input: { cmd: command, sandbox_permissions: 'require_escalated', justification: 'look around' },
  }),
};

/**
 * A prompt-injected command: the state folder is three levels above the worktree
 * (`<home>/worktrees/<project>/<session>`); the token, the supervisor's port, and any process's
 * environment naming it.
 */
const REACH =
  "cat ../../../token ../../../supervisor.json; ls ../../..; echo environs: $(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c '^BATON_HOME=')";

const QUESTION = 'Keep the old onChange signature?';
const MESSAGE = 'I changed the event schema; rebase on it before you touch the handlers.';

const scenarios: Scenario[] = AGENTS.flatMap((agent) => [
  {
    prompt: `${agent}: ask the user through baton`,
    steps: [
      { tools: [{ ...TOOL[agent]('ask_user'), input: { question: QUESTION } }] },
      { text: 'Keeping it, as you said.' },
    ],
  },
  {
    prompt: `${agent}: message the other session`,
    steps: [
      { tools: [{ ...TOOL[agent]('send_message'), input: { to: `${agent}-target`, text: MESSAGE } }] },
      { text: 'Told them.' },
    ],
  },
  { prompt: `${agent}: wait for news`, steps: [{ text: 'Waiting for news.' }] },
  {
    prompt: `${agent}: record a decision through baton`,
    steps: [
      {
        tools: [
          {
            ...TOOL[agent]('record_decision'),
            input: { title: `${agent} keeps onChange`, text: 'Callers outside the repository use it.' },
          },
        ],
      },
      { text: 'Recorded.' },
    ],
  },
  { prompt: MESSAGE, steps: [{ text: 'Rebasing on the new schema.' }] },
  {
    prompt: `${agent}: reach for the user's token`,
    steps: [{ tools: [SHELL[agent](REACH)] }, { text: 'Nothing there.' }],
  },
]);

const WAIT = 45_000;
vi.setConfig({ testTimeout: 4 * WAIT });

let server: ModelServer;
const agentHomes: string[] = [];
const own: TestBaton[] = [];
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
  for (const baton of own.splice(0)) baton.cleanup();
  server.assertClean();
});

/** A Baton home whose agents (claude, codex) have a home of their own too. */
function agentsBaton(env: Record<string, string> = {}): TestBaton {
  const agentHome = mkdtempSync(join(tmpdir(), 'baton-agent-home-'));
  agentHomes.push(agentHome);
  return new TestBaton({ ...realAgentsEnv(server.url, agentHome), ...env });
}

/** This test's own home, for one the others' would change (another MCP transport). */
function ownHome(env: Record<string, string>): void {
  t = agentsBaton(env);
  own.push(t);
  repo = t.repo();
}

async function events(ref: string): Promise<BatonEvent[]> {
  return (await t.ok(['logs', ref, '--json']))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as BatonEvent);
}

/** The `baton mcp` processes running for this test, with their working folders. */
function mcpServers(): { pid: number; cwd: string }[] {
  return t
    .processes()
    .filter((p) => / mcp$/.test(p.cmdline))
    .map((p) => ({ pid: p.pid, cwd: readlinkSync(`/proc/${p.pid}/cwd`) }));
}

describe.each(AGENTS)('%s calling Baton’s MCP server', (agent) => {
  // The tests share one home and supervisor (decisions 422 and 433), each dispatching in a
  // repository of its own under names the others do not use; the stdio test has its own home.
  sharedHome(
    (baton, dir) => ((t = baton), (repo = dir)),
    () => agentsBaton(),
  );

  it('ask_user: the session needs input with the question; the reply reaches the model as the tool’s result', async () => {
    await t.ok(['dispatch', `${agent}: ask the user through baton`, '--agent', agent, '--name', 'asker'], {
      cwd: repo,
    });
    const waiting = await t.waitForState('asker', 'needs_input', WAIT);
    expect(waiting.reason).toEqual({ kind: 'question', text: QUESTION });
    // The supervisor serves the tools (decision 365): the session runs no `baton mcp` of its own.
    expect(mcpServers()).toEqual([]);
    await t.ok(['reply', 'asker', 'yes, keep it']);
    const done = await t.waitForState('asker', 'ready_for_review', WAIT);
    expect(done.reason).toBeNull();
    const [, second] = server.requestsFor(`${agent}: ask the user through baton`);
    expect(second?.text).toContain('The user answered: yes, keep it');
    const log = await events('asker');
    expect(log).toContainEqual(expect.objectContaining({ type: 'question.asked', text: QUESTION }));
    expect(log).toContainEqual(expect.objectContaining({ type: 'question.answered', text: 'yes, keep it' }));
    expect(log.filter((e) => e.type === 'turn.started')).toHaveLength(1);
  });

  it('ask_user through the stdio fallback (BATON_MCP_TRANSPORT=stdio): `baton mcp` in the session’s worktree', async () => {
    ownHome({ BATON_MCP_TRANSPORT: 'stdio' });
    await t.ok(['dispatch', `${agent}: ask the user through baton`, '--agent', agent, '--name', 'asker'], {
      cwd: repo,
    });
    const waiting = await t.waitForState('asker', 'needs_input', WAIT);
    expect(waiting.reason).toEqual({ kind: 'question', text: QUESTION });
    // Baton's MCP server runs in the session's own worktree, never in the main checkout.
    expect(mcpServers().map((s) => s.cwd)).toEqual([waiting.worktree]);
    await t.ok(['reply', 'asker', 'yes, keep it']);
    await t.waitForState('asker', 'ready_for_review', WAIT);
    const [, second] = server.requestsFor(`${agent}: ask the user through baton`);
    expect(second?.text).toContain('The user answered: yes, keep it');
  });

  it('record_decision: the decision is in the workspace, with the session as its author', async () => {
    await t.ok(
      ['dispatch', `${agent}: record a decision through baton`, '--agent', agent, '--name', 'decider'],
      { cwd: repo },
    );
    const done = await t.waitForState('decider', 'ready_for_review', WAIT);
    const { records } = await t.client().call('GET /api/mcp/decisions');
    expect(records).toEqual([
      expect.objectContaining({
        kind: 'decision',
        title: `${agent} keeps onChange`,
        text: 'Callers outside the repository use it.',
        author: { sessionId: done.id, name: 'decider' },
      }),
    ]);
    const [, afterCall] = server.requestsFor(`${agent}: record a decision through baton`);
    expect(afterCall?.text).toMatch(new RegExp(`decision \\d+ by decider: ${agent} keeps onChange`));
  });

  it("send_message: the other session's next turn holds the message, with who sent it", async () => {
    await t.ok(['dispatch', `${agent}: wait for news`, '--agent', agent, '--name', `${agent}-target`], {
      cwd: repo,
    });
    await t.waitForState(`${agent}-target`, 'ready_for_review', WAIT);
    await t.ok(['dispatch', `${agent}: message the other session`, '--agent', agent, '--name', 'sender'], {
      cwd: repo,
    });
    await t.waitForState('sender', 'ready_for_review', WAIT);
    const [, afterCall] = server.requestsFor(`${agent}: message the other session`);
    expect(afterCall?.text).toContain(`Sent to ${agent}-target; it is taking it now.`);
    await t.waitForEvent(
      `${agent}-target`,
      (e) => e.type === 'message.added' && e.role === 'assistant' && e.text === 'Rebasing on the new schema.',
      WAIT,
    );
    const [delivered] = server.requestsFor(MESSAGE);
    expect(delivered?.prompt).toContain(
      `Message from sender (another agent's session in this workspace), sent through Baton:`,
    );
    expect(delivered?.prompt).toContain(MESSAGE);
    const log = await events(`${agent}-target`);
    expect(log).toContainEqual(
      expect.objectContaining({
        type: 'message.added',
        role: 'user',
        text: MESSAGE,
        from: expect.objectContaining({ name: 'sender' }),
      }),
    );
    expect(readFileSync(join(t.home, 'supervisor.log'), 'utf8')).not.toMatch(/unhandled/);
  });

  it('a command reaching for the user’s token finds no state folder and no process naming it (decision 163)', async () => {
    const prompt = `${agent}: reach for the user's token`;
    await t.ok(['dispatch', prompt, '--agent', agent, '--name', 'reacher'], { cwd: repo });
    // Whether the agent asks first (claude's default mode) or runs it, the command runs once.
    const first = await t.waitForEvent(
      'reacher',
      (e) => e.type === 'approval.requested' || e.type === 'turn.completed',
      WAIT,
    );
    if (first.type === 'approval.requested') await t.ok(['approve', 'reacher']);
    await t.waitForState('reacher', 'ready_for_review', WAIT);
    const token = readFileSync(join(t.home, 'token'), 'utf8').trim();
    const [, second] = server.requestsFor(prompt);
    expect(second?.text).toContain('token: No such file or directory');
    expect(second?.text).toContain('supervisor.json: No such file or directory');
    expect(second?.text).toContain('environs: 0');
    expect(second?.text).not.toContain(token);
    expect(await events('reacher')).toContainEqual(
      expect.objectContaining({ type: 'session.started', sandbox: 'bubblewrap' }),
    );
  });
});
