import { describe, expect, it } from 'vitest';
import type { EventBody } from '../events/index.js';
import { PackBudgetError } from './errors.js';
import { buildHandoffPack } from './pack.js';
import { estimateTokens, transcriptFromEvents, transcriptText, type Transcript } from './transcript.js';

const head = {
  sessionId: 's1',
  name: 'designer',
  agent: 'claude',
  origin: 'baton' as const,
  prompt: 'design the tenant cache',
  cwd: null,
  startedAt: '2026-01-01T00:00:00Z',
};

function transcriptOf(bodies: EventBody[]): Transcript {
  const events = bodies.map((body, i) => ({
    v: 1,
    seq: i + 1,
    ts: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`,
    ...body,
  }));
  return transcriptFromEvents(head, events);
}

/** A long session: hundreds of turns of reasoning, edits, command output and chatter. */
function longTranscript(turns: number): Transcript {
  const bodies: EventBody[] = [];
  for (let i = 0; i < turns; i++) {
    bodies.push({
      type: 'thinking.added',
      text: `Turn ${i}: weighing the layout of shard ${i}; the index over tenant ${i} must stay small. `.repeat(
        4,
      ),
    });
    bodies.push({
      type: 'tool.started',
      toolId: `t${i}`,
      tool: 'Edit',
      input: JSON.stringify({ file_path: `src/shard${i % 40}.ts`, old_string: 'a', new_string: 'b' }),
      files: [`src/shard${i % 40}.ts`],
    });
    bodies.push({
      type: 'tool.finished',
      toolId: `t${i}`,
      tool: 'Edit',
      ok: i % 17 !== 0,
      output: `line ${i}\n`.repeat(60),
    });
    bodies.push({
      type: 'message.added',
      role: 'assistant',
      text: `Edited shard ${i}. It compiles and the tests for shard ${i} pass. `.repeat(3),
    });
  }
  return transcriptOf(bodies);
}

const decisions = Array.from({ length: 12 }, (_, i) => ({
  id: `d${i}`,
  title: `Decision ${i}: shard ${i} stays keyed by tenant`,
  text: `because moving shard ${i} would break its readers`,
}));

describe('buildHandoffPack', () => {
  it('stays within its budget on a long transcript, keeps every recorded decision, and is a small fraction of its source', () => {
    const t = longTranscript(600);
    const pack = buildHandoffPack({
      transcript: t,
      task: 'write the migration for shard 7',
      toAgent: 'codex',
      budgetTokens: 700,
      decisions,
    });
    expect(pack.tokens).toBeLessThanOrEqual(700);
    expect(estimateTokens(pack.text)).toBe(pack.tokens);
    for (const d of decisions) expect(pack.text).toContain(`${d.title}: ${d.text}`);
    expect(pack.decisionsKept).toBe(12);
    expect(pack.sourceTokens).toBe(estimateTokens(transcriptText(t)));
    expect(pack.tokens / pack.sourceTokens).toBeLessThan(0.1);
    // What did not fit is said, not silently dropped.
    expect(Object.keys(pack.omitted).length).toBeGreaterThan(0);
    expect(pack.text).toMatch(/more left out for the budget/);
  });

  it('refuses a budget too small for the task and the recorded decisions, saying what they need', () => {
    const t = longTranscript(5);
    let error: unknown;
    try {
      buildHandoffPack({ transcript: t, task: 'next', toAgent: 'codex', budgetTokens: 300, decisions });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PackBudgetError);
    expect((error as Error).message).toMatch(
      /A budget of 300 tokens cannot hold the task and its 12 recorded decisions \(they need about \d+\); nothing was cut\. Give --budget \dk or more\./,
    );
  });

  it('draws decisions, open questions, files and why, and failures from the transcript when none were recorded', () => {
    const t = transcriptOf([
      { type: 'thinking.added', text: 'Users share tenants, so key by tenant.' },
      {
        type: 'tool.started',
        toolId: 'a',
        tool: 'Write',
        input: '{"file_path":"cache.ts"}',
        files: ['cache.ts'],
      },
      { type: 'tool.finished', toolId: 'a', tool: 'Write', ok: true },
      { type: 'tool.started', toolId: 'b', tool: 'Bash', input: 'npm run migrate' },
      {
        type: 'tool.finished',
        toolId: 'b',
        tool: 'Bash',
        ok: false,
        output: 'Error: no such table tenants\nat line 3',
      },
      {
        type: 'message.added',
        role: 'assistant',
        text: 'Decided: keep the old onChange signature. The in-memory map did not work for two processes. Should entries expire hourly?',
      },
    ]);
    const pack = buildHandoffPack({ transcript: t, task: 'add expiry', toAgent: 'codex' });
    expect(pack.text).toContain(
      '## Decisions (drawn from the transcript; none were recorded)\n\n- Decided: keep the old onChange signature.',
    );
    expect(pack.text).toContain('## Open questions\n\n- Should entries expire hourly?');
    expect(pack.text).toContain('- `cache.ts` (Write) #2 — Users share tenants, so key by tenant.');
    expect(pack.text).toContain('Bash `npm run migrate` failed: Error: no such table tenants');
    // No budget given: a tenth of the source, and never under 1,500 tokens.
    expect(pack.budgetTokens).toBe(1500);
  });

  it('redacts secrets in the pack', () => {
    const t = transcriptOf([
      {
        type: 'message.added',
        role: 'assistant',
        text: 'Decided: use key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 for now.',
      },
    ]);
    const pack = buildHandoffPack({
      transcript: t,
      task: 'go on',
      toAgent: 'codex',
      decisions: [{ title: 'token is ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123' }],
    });
    expect(pack.text).not.toMatch(/sk-ant-api03|ghp_abc/);
    expect(pack.text).toContain('[REDACTED:');
  });
});
