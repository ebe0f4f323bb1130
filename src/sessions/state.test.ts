import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SESSION_STATES, type EventBody, type SessionState } from '../events/index.js';
import {
  MOVES,
  StateMachine,
  transition,
  trailingQuestion,
  type SessionStatus,
  type Trigger,
} from './state.js';

const event = (body: EventBody, lastAssistantText?: string, stopRequested = false): Trigger => ({
  kind: 'event',
  event: body,
  stopRequested,
  lastAssistantText,
});

/** One trigger of every kind, and every protocol outcome that decides a state. */
const TRIGGERS: Record<string, Trigger> = {
  'turn.started': event({ type: 'turn.started' }),
  'approval.requested': event({
    type: 'approval.requested',
    requestId: 'r1',
    tool: 'Bash',
    input: 'rm -rf build',
  }),
  'question.asked': event({ type: 'question.asked', text: 'Which one?' }),
  'approval.resolved': event({ type: 'approval.resolved', requestId: 'r0', decision: 'allow' }),
  'turn ok': event({ type: 'turn.completed', outcome: 'success' }),
  'turn error': event({ type: 'turn.completed', outcome: 'error', error: 'HTTP 500' }),
  'turn interrupted': event({ type: 'turn.completed', outcome: 'interrupted' }),
  'turn after stop': event({ type: 'turn.completed', outcome: 'error', error: 'aborted' }, undefined, true),
  'turn ok, asks': event({ type: 'turn.completed', outcome: 'success' }, 'Done.\n\nKeep onChange?'),
  'tool.started': event({ type: 'tool.started', toolId: 't', tool: 'Bash', input: 'ls' }),
  queued: { kind: 'queued', note: 'respawn requested' },
  host_started: { kind: 'host_started' },
  'ending completed': { kind: 'host_ending', end: 'completed' },
  'ending stopped': { kind: 'host_ending', end: 'stopped' },
  'ending failed': { kind: 'host_ending', end: 'failed', message: 'boom' },
  'ending idle': { kind: 'host_ending', end: 'idle' },
  host_lost: { kind: 'host_lost', message: 'the host exited' },
  stopped_by_user: { kind: 'stopped_by_user' },
  marked_done: { kind: 'marked_done' },
  preparing: { kind: 'preparing' },
  paused: { kind: 'paused', message: 'session budget reached' },
};

/** The status each state is tested from; needs_input waits on approval r0. */
const FROM: Record<SessionState, SessionStatus> = {
  queued: { state: 'queued' },
  preparing: { state: 'preparing' },
  starting: { state: 'starting' },
  working: { state: 'working' },
  needs_input: {
    state: 'needs_input',
    reason: { kind: 'approval', requestId: 'r0', tool: 'Bash', input: 'ls' },
  },
  ready_for_review: { state: 'ready_for_review' },
  failed: { state: 'failed', reason: { kind: 'error', message: 'earlier' } },
  stopped: { state: 'stopped', reason: { kind: 'note', message: 'stopped by the user' } },
  completed: { state: 'completed' },
};

// prettier-ignore
/** Expected state after each trigger ('-': unchanged), columns in TRIGGERS order. */
const EXPECTED: Record<SessionState, string[]> = {
  //                turn.st  appr.req   question   appr.res  ok                error     interr.   stop-ask  asks       tool  queued    host_st   e.compl    e.stop    e.fail    e.idle lost      by_user   done       prep   paused
  queued:           ['-', '-', '-', '-', '-', 'failed', '-', 'stopped', '-', '-', '-', 'starting', 'completed', 'stopped', 'failed', '-', 'failed', 'stopped', 'completed', 'preparing', '-'],
  preparing:        ['-', '-', '-', '-', '-', 'failed', '-', 'stopped', '-', '-', '-', 'starting', 'completed', 'stopped', 'failed', '-', 'failed', 'stopped', 'completed', '-', '-'],
  starting:         ['working', 'needs_input', 'needs_input', '-', 'ready_for_review', 'failed', 'needs_input', 'stopped', 'needs_input', '-', '-', '-', 'completed', 'stopped', 'failed', '-', 'failed', 'stopped', 'completed', '-', '-'],
  working:          ['-', 'needs_input', 'needs_input', '-', 'ready_for_review', 'failed', 'needs_input', 'stopped', 'needs_input', '-', '-', 'starting', 'completed', 'stopped', 'failed', '-', 'failed', 'stopped', 'completed', '-', '-'],
  needs_input:      ['working', 'needs_input', 'needs_input', 'working', 'ready_for_review', 'failed', 'needs_input', 'stopped', 'needs_input', '-', '-', 'starting', 'completed', 'stopped', 'failed', '-', 'failed', 'stopped', 'completed', '-', '-'],
  ready_for_review: ['working', 'needs_input', 'needs_input', '-', '-', 'failed', 'needs_input', 'stopped', 'needs_input', '-', 'queued', 'starting', 'completed', 'stopped', 'failed', '-', 'failed', 'stopped', 'completed', '-', 'needs_input'],
  failed:           ['working', '-',       '-',       '-',      '-',              '-',      '-',       '-',       '-',       '-',  'queued', 'starting', 'completed', '-',       '-',      '-', '-',      '-',       'completed', '-', '-'],
  stopped:          ['working', '-',     '-',       '-',      '-',              'failed', '-',       '-',       '-',       '-',  'queued', 'starting', 'completed', '-',       'failed', '-', 'failed', '-',       'completed', '-', '-'],
  completed:        ['-',     '-',       '-',       '-',      '-',              '-',      '-',       '-',       '-',       '-',  '-',      '-',        '-',         '-',       '-',      '-', '-',      '-',       '-', '-', '-'],
};

describe('the watchdog pausing a session', () => {
  it('ends an interrupted turn in needs input with the watchdog reason, whatever the agent reported', () => {
    const note = 'session budget $2.00 reached';
    for (const outcome of ['interrupted', 'success', 'error'] as const) {
      const trigger: Trigger = {
        kind: 'event',
        event: { type: 'turn.completed', outcome },
        stopRequested: false,
        interruptNote: note,
      };
      expect(transition({ state: 'working' }, trigger)).toEqual({
        state: 'needs_input',
        reason: { kind: 'note', message: note },
      });
    }
  });

  it('holds a session between turns only when it is ready for review', () => {
    expect(transition({ state: 'ready_for_review' }, { kind: 'paused', message: 'm' })).toEqual({
      state: 'needs_input',
      reason: { kind: 'note', message: 'm' },
    });
    expect(transition({ state: 'working' }, { kind: 'paused', message: 'm' })).toBeUndefined();
  });
});

describe('a usage limit', () => {
  const limited = (limit: { window?: string; resetsAt?: string }): Trigger => ({
    kind: 'event',
    event: { type: 'turn.completed', outcome: 'error', error: 'You have hit your usage limit', limit },
    stopRequested: false,
  });

  it('pauses the session until the reset rather than failing it', () => {
    expect(
      transition({ state: 'working' }, limited({ window: '5h', resetsAt: '2026-11-23T15:00:00.000Z' })),
    ).toEqual({
      state: 'needs_input',
      reason: {
        kind: 'note',
        message:
          'paused at the usage limit (5h window): You have hit your usage limit; resumes at 2026-11-23T15:00:00.000Z',
        until: '2026-11-23T15:00:00.000Z',
      },
    });
  });

  it('waits for a reply when the agent did not say when the window resets', () => {
    expect(transition({ state: 'working' }, limited({}))).toEqual({
      state: 'needs_input',
      reason: {
        kind: 'note',
        message: 'paused at the usage limit: You have hit your usage limit; reply to go on once it has reset',
      },
    });
  });

  it('still fails a turn whose error is not a limit, and a stop still wins over a limit', () => {
    expect(transition({ state: 'working' }, TRIGGERS['turn error']!)?.state).toBe('failed');
    expect(
      transition({ state: 'working' }, { ...limited({ resetsAt: 'x' }), stopRequested: true } as Trigger)
        ?.state,
    ).toBe('stopped');
  });
});

describe('the session state machine', () => {
  const names = Object.keys(TRIGGERS);

  it('has an expectation for every state and trigger', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...SESSION_STATES].sort());
    for (const row of Object.values(EXPECTED)) expect(row).toHaveLength(names.length);
  });

  for (const state of SESSION_STATES) {
    it(`moves from ${state} as the table says, for every trigger`, () => {
      const got = names.map((name) => transition(FROM[state], TRIGGERS[name] as Trigger)?.state ?? '-');
      expect(Object.fromEntries(names.map((n, i) => [n, got[i]]))).toEqual(
        Object.fromEntries(names.map((n, i) => [n, EXPECTED[state][i]])),
      );
    });
  }

  it('never makes a move the table does not allow', () => {
    for (const state of SESSION_STATES) {
      for (const trigger of Object.values(TRIGGERS)) {
        const next = transition(FROM[state], trigger);
        if (next !== undefined) expect(MOVES[state]).toContain(next.state);
      }
    }
  });

  it('starts a session only by queueing it', () => {
    for (const [name, trigger] of Object.entries(TRIGGERS)) {
      expect(transition(undefined, trigger)?.state, name).toBe(name === 'queued' ? 'queued' : undefined);
    }
    expect(new StateMachine().apply({ kind: 'queued' })).toEqual({ type: 'state.changed', to: 'queued' });
  });

  it('carries the reason: the pending approval, the question, the error, the user stop', () => {
    const machine = new StateMachine({ state: 'working' });
    expect(machine.apply(TRIGGERS['approval.requested'] as Trigger)).toEqual({
      type: 'state.changed',
      from: 'working',
      to: 'needs_input',
      reason: { kind: 'approval', requestId: 'r1', tool: 'Bash', input: 'rm -rf build' },
    });
    expect(transition({ state: 'working' }, TRIGGERS['turn ok, asks'] as Trigger)).toEqual({
      state: 'needs_input',
      reason: { kind: 'question', text: 'Keep onChange?' },
    });
    expect(transition({ state: 'working' }, TRIGGERS['turn error'] as Trigger)).toEqual({
      state: 'failed',
      reason: { kind: 'error', message: 'HTTP 500' },
    });
    // The agent reports the abort as an error; the user's stop wins.
    expect(transition({ state: 'working' }, TRIGGERS['turn after stop'] as Trigger)).toEqual({
      state: 'stopped',
      reason: { kind: 'note', message: 'stopped by the user' },
    });
  });

  it('says why a session was stopped when it was not the user (a lost placement)', () => {
    const why = 'stopped on beta: this machine no longer holds the session’s placement';
    const afterStop: Trigger = {
      kind: 'event',
      event: { type: 'turn.completed', outcome: 'error', error: 'aborted' },
      stopRequested: true,
      stopNote: why,
    };
    expect(transition({ state: 'working' }, afterStop)).toEqual({
      state: 'stopped',
      reason: { kind: 'note', message: why },
    });
    expect(
      transition({ state: 'ready_for_review' }, { kind: 'host_ending', end: 'stopped', message: why }),
    ).toEqual({ state: 'stopped', reason: { kind: 'note', message: why } });
    expect(transition({ state: 'ready_for_review' }, { kind: 'stopped_by_user', message: why })).toEqual({
      state: 'stopped',
      reason: { kind: 'note', message: why },
    });
    // The turn's stop already said why: the host's end keeps it.
    expect(
      transition(
        { state: 'stopped', reason: { kind: 'note', message: why } },
        { kind: 'host_ending', end: 'stopped', message: why },
      ),
    ).toBeUndefined();
  });

  it('records a second pending approval as a change, and the same one not at all', () => {
    const waiting = FROM.needs_input;
    expect(transition(waiting, TRIGGERS['approval.requested'] as Trigger)?.reason).toMatchObject({
      requestId: 'r1',
    });
    expect(
      transition(waiting, event({ type: 'approval.requested', requestId: 'r0', tool: 'Bash', input: 'ls' })),
    ).toBeUndefined();
  });

  it('follows the status it applied, and a restored one', () => {
    const machine = new StateMachine({ state: 'queued' });
    expect(machine.apply({ kind: 'host_started' })).toMatchObject({ from: 'queued', to: 'starting' });
    expect(machine.apply({ kind: 'host_started' })).toBeUndefined();
    machine.restore({ state: 'ready_for_review' });
    expect(machine.apply({ kind: 'queued', note: 'respawn requested' })).toEqual({
      type: 'state.changed',
      from: 'ready_for_review',
      to: 'queued',
      reason: { kind: 'note', message: 'respawn requested' },
    });
  });

  it('is the only code in src/ that builds a state.changed event', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (
          /\.tsx?$/.test(name) &&
          !name.endsWith('.test.ts') &&
          // A domain's fixtures for its tests (e.g. every event kind, as samples): never product code.
          name !== 'testing.ts' &&
          !path.endsWith(join('sessions', 'state.ts'))
        ) {
          if (/type:\s*'state\.changed'\s*,/.test(readFileSync(path, 'utf8'))) offenders.push(path);
        }
      }
    };
    walk(join(import.meta.dirname, '..'));
    expect(offenders).toEqual([]);
  });
});

describe('a question at the end of a turn', () => {
  it('is only a final question mark, in the last paragraph', () => {
    expect(trailingQuestion('Is it done? Yes, all tests pass.')).toBeUndefined();
    expect(trailingQuestion('Done.\n\nWant me to also update the docs?  ')).toBe(
      'Want me to also update the docs?',
    );
    expect(trailingQuestion(undefined)).toBeUndefined();
  });
});
