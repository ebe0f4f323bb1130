import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentsLastError,
  CONTINUE_PROMPT,
  Conversation,
  RESUMED_MESSAGE,
  type TurnDriver,
} from './conversation.js';
import type { AgentEvent, AgentStartOptions } from './types.js';

/** A protocol that only records what the loop asked of it. */
class FakeDriver implements TurnDriver {
  readonly sent: string[] = [];
  interrupts = 0;
  shutDowns = 0;
  released = 0;
  openTools: string[] = [];
  sendTurn(prompt: string): void {
    this.sent.push(prompt);
  }
  async interruptTurn(): Promise<void> {
    this.interrupts++;
  }
  shutDown(): void {
    this.shutDowns++;
  }
  kill(): void {}
  closeOpenTools(why: string): AgentEvent[] {
    const events = this.openTools.map((toolId) => ({
      type: 'tool.finished' as const,
      toolId,
      tool: 'x',
      ok: false,
      output: why,
    }));
    this.openTools = [];
    return events;
  }
  releaseWaiters(): void {
    this.released++;
  }
}

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-conversation-'));
  dirs.push(dir);
  return dir;
}

function conversation(dir: string, opts: { resumeId?: string; ready?: boolean } = {}) {
  const events: AgentEvent[] = [];
  const start: AgentStartOptions = {
    sessionId: 's1',
    cwd: dir,
    prompt: 'do the task',
    permissionMode: 'default',
    stateDir: dir,
    options: {},
    env: {},
    resumeId: opts.resumeId,
  };
  const turns = new Conversation({
    agent: 'fake',
    start,
    emit: (e) => events.push(e),
    initialState: { usage: 0 },
    ready: opts.ready ?? true,
    closeGraceMs: 10,
  });
  const driver = new FakeDriver();
  return { turns, driver, events, types: () => events.map((e) => e.type) };
}

const success = { type: 'turn.completed', outcome: 'success' } as const;

describe('the shared turn loop', () => {
  it('sends the prompt as the first turn and records the open turn in the state file', () => {
    const dir = stateDir();
    const { turns, driver, events } = conversation(dir);
    turns.begin(driver);
    expect(driver.sent).toEqual(['do the task']);
    expect(events).toEqual([{ type: 'turn.started', prompt: 'do the task' }]);
    expect(JSON.parse(readFileSync(join(dir, 'fake.json'), 'utf8'))).toEqual({ usage: 0, turnOpen: true });
  });

  it('holds a reply sent during a turn until the turn ends, then sends it as a turn of its own', () => {
    const { turns, driver, events } = conversation(stateDir());
    turns.begin(driver);
    turns.reply('first reply');
    turns.reply('second reply');
    expect(driver.sent).toEqual(['do the task']);
    turns.completeTurn(success);
    expect(driver.sent).toEqual(['do the task', 'first reply']);
    turns.completeTurn(success);
    turns.completeTurn(success);
    expect(driver.sent).toEqual(['do the task', 'first reply', 'second reply']);
    expect(events.filter((e) => e.type === 'turn.started').map((e) => e.prompt)).toEqual([
      'do the task',
      'first reply',
      'second reply',
    ]);
    turns.completeTurn(success);
    expect(turns.turnActive).toBe(false);
  });

  it('saves the adapter state with the completed turn and reads it back after a restart', () => {
    const dir = stateDir();
    const first = conversation(dir);
    first.turns.begin(first.driver);
    first.turns.completeTurn(success, { usage: 42 });
    expect(first.turns.state.usage).toBe(42);
    const second = conversation(dir, { resumeId: 'agent-1' });
    expect(second.turns.state).toEqual({ usage: 42, turnOpen: false });
  });

  it('continues a turn the restart interrupted with the continue prompt', () => {
    const dir = stateDir();
    const first = conversation(dir);
    first.turns.begin(first.driver);
    const second = conversation(dir, { resumeId: 'agent-1' });
    second.turns.begin(second.driver);
    expect(second.driver.sent).toEqual([CONTINUE_PROMPT]);
  });

  it('resumed after a finished turn, says so without sending anything and waits for a reply', () => {
    const dir = stateDir();
    const first = conversation(dir);
    first.turns.begin(first.driver);
    first.turns.completeTurn(success);
    const second = conversation(dir, { resumeId: 'agent-1' });
    second.turns.begin(second.driver);
    expect(second.driver.sent).toEqual([]);
    expect(second.events).toEqual([
      { type: 'turn.started' },
      { type: 'message.added', role: 'assistant', text: RESUMED_MESSAGE },
      success,
    ]);
    second.turns.reply('go on');
    expect(second.driver.sent).toEqual(['go on']);
  });

  it('until the agent is ready, holds the prompt and queues replies, then sends them in order', () => {
    const { turns, driver, types } = conversation(stateDir(), { ready: false });
    turns.begin(driver);
    turns.reply('early reply');
    expect(types()).toEqual(['turn.started']);
    expect(driver.sent).toEqual([]);
    turns.ready();
    expect(driver.sent).toEqual(['do the task']);
    turns.completeTurn(success);
    expect(driver.sent).toEqual(['do the task', 'early reply']);
  });

  it('treats an unreadable state file as a fresh start', () => {
    const dir = stateDir();
    writeFileSync(join(dir, 'fake.json'), '{not json');
    const { turns, driver } = conversation(dir, { resumeId: 'agent-1' });
    expect(turns.state).toEqual({ usage: 0, turnOpen: false });
    turns.begin(driver);
    expect(driver.sent).toEqual([]);
  });

  it('an interrupt drops queued replies, releases waiters and asks the agent to stop the turn', async () => {
    const { turns, driver } = conversation(stateDir());
    turns.begin(driver);
    turns.reply('queued');
    await turns.interrupt();
    expect([driver.interrupts, driver.released, turns.interruptRequested]).toEqual([1, 1, true]);
    turns.completeTurn({ type: 'turn.completed', outcome: 'interrupted' });
    expect(driver.sent).toEqual(['do the task']);
    expect(turns.interruptRequested).toBe(false);
  });

  it("a crash fails the open turn, closes its tools and reports a fatal error with the agent's own reason", async () => {
    const { turns, driver, events } = conversation(stateDir());
    turns.begin(driver);
    driver.openTools = ['t1'];
    const stderr =
      'starting\n\x1b[31mError: --dangerously-skip-permissions cannot be used with root/sudo privileges\x1b[0m\n';
    turns.crashed('agent exited with code 1', stderr);
    const error =
      'Error: --dangerously-skip-permissions cannot be used with root/sudo privileges (agent exited with code 1)';
    expect(events.slice(1)).toEqual([
      { type: 'tool.finished', toolId: 't1', tool: 'x', ok: false, output: error },
      { type: 'turn.completed', outcome: 'error', error },
      { type: 'error.raised', message: error, fatal: true, detail: stderr },
    ]);
    expect(await turns.exited).toEqual({ error });
  });

  it('finds the reason in a stderr tail: the last line that says why, not a stack frame', () => {
    expect(
      agentsLastError(
        'warming up\nTypeError: fetch failed\n    at main (/x/cli.js:3:9)\n    at node:internal/x:1:1\n',
      ),
    ).toBe('TypeError: fetch failed');
    expect(agentsLastError('just one line\n')).toBe('just one line');
    expect(agentsLastError('\n  \n')).toBeUndefined();
  });

  it('after close, the agent ending is not a crash and replies are ignored', async () => {
    const { turns, driver, types } = conversation(stateDir());
    turns.begin(driver);
    const closed = turns.close();
    turns.reply('too late');
    turns.crashed('agent was killed by SIGTERM');
    await closed;
    expect(await turns.exited).toEqual({});
    expect([driver.shutDowns, driver.sent.length]).toEqual([1, 1]);
    expect(types()).toEqual(['turn.started']);
  });
});
