/**
 * For the events domain's tests and those of what reads event logs: events of every kind. Not
 * shipped (the package leaves out `testing.*`).
 */
import type { EventBody } from './index.js';

/** Every kind of event with every field it may carry, as the host writes them. */
export const EVERY_FIELD: EventBody[] = [
  { type: 'state.changed', to: 'queued' },
  {
    type: 'session.started',
    agent: 'claude',
    cwd: '/w',
    model: 'opus',
    hostPid: 12,
    resumed: true,
    sandbox: 'bubblewrap',
  },
  { type: 'agent.identified', agentSessionId: 'a-1' },
  { type: 'turn.started', prompt: 'fix it' },
  {
    type: 'message.added',
    role: 'user',
    text: 'quotes " and \\ and\nbreaks, é, 🙂',
    clientId: 'c-1',
    from: { sessionId: null, name: 'other' },
  },
  { type: 'thinking.added', text: 'hmm' },
  { type: 'tool.started', toolId: 't1', tool: 'Bash', kind: 'run', input: 'ls', files: ['a', 'b'] },
  { type: 'tool.finished', toolId: 't1', tool: 'Bash', ok: false, output: 'x', exitCode: 2, files: ['a'] },
  {
    type: 'approval.requested',
    requestId: 'r1',
    tool: 'Bash',
    kind: 'run',
    input: 'rm -rf x',
    reason: 'why',
    gate: 'g',
  },
  {
    type: 'tool.blocked',
    tool: 'Bash',
    kind: 'run',
    input: 'curl',
    rule: 'net',
    why: 'no',
    suggest: 'ask',
  },
  { type: 'approval.resolved', requestId: 'r1', decision: 'allow', reason: 'ok', allowRule: 3 },
  { type: 'question.asked', text: 'go?' },
  { type: 'question.answered', text: 'go' },
  {
    type: 'usage.reported',
    inputTokens: 10,
    outputTokens: 20,
    cacheReadTokens: 5,
    costUsd: 0.25,
    model: 'opus',
  },
  {
    type: 'limits.reported',
    windows: [{ name: '5h', usedPercent: 12.5, windowMinutes: 300, resetsAt: '2026-01-01T00:00:00Z' }],
  },
  {
    type: 'turn.completed',
    outcome: 'error',
    error: 'limit',
    limit: { window: '5h', resetsAt: '2026-01-01T00:00:00Z' },
  },
  { type: 'error.raised', message: 'bad', fatal: false, detail: 'more' },
  {
    type: 'state.changed',
    from: 'queued',
    to: 'needs_input',
    reason: { kind: 'approval', requestId: 'r1', tool: 'Bash', input: 'ls', reason: 'why' },
  },
  { type: 'setup.step', index: 0, kind: 'run', label: 'npm ci' },
  { type: 'setup.output', index: 0, text: 'ok' },
  { type: 'setup.finished', ok: true, durationMs: 12, error: 'none' },
  {
    type: 'work.checkpointed',
    checkpoint: 'c1',
    ref: 'refs/x',
    commit: 'a'.repeat(40),
    command: 'reset',
    why: 'kept',
    fresh: true,
  },
  { type: 'session.ended', reason: 'stopped', message: 'bye' },
];
