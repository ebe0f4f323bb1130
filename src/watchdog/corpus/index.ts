/**
 * The loop rule's corpus (loops.txt, its format described at its top) and its score: each case's
 * calls fed through the real rules (harmless.ts, loop.ts, rules.ts) and what the rule did compared
 * with what it must do. A false alarm is an alert where nothing was due, or a pause where an alert
 * was; a miss is a loop not reported, or one not paused that had to be.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BatonEvent, EventBody } from '../../events/index.js';
import type { LoopLimits } from '../loop.js';
import { resolveRules, SessionRules } from '../rules.js';

export type LoopExpectation = 'pause' | 'alert' | 'quiet';

export interface LoopCase {
  name: string;
  expect: LoopExpectation;
  events: EventBody[];
  where: string;
}

export interface LoopScore {
  cases: number;
  /** Alerts where nothing was due. */
  falseAlerts: number;
  /** Pauses where at most an alert (or nothing) was due: the interrupts users switch the rule off for. */
  falsePauses: number;
  /** Loops that had to be reported and were not. */
  missedAlerts: number;
  /** Loops that had to be paused and were only reported, or not at all. */
  missedPauses: number;
  wrong: { name: string; where: string; expected: LoopExpectation; got: LoopExpectation }[];
}

const WORKTREE = '/home/dev/wt/repo';

/** The corpus sits beside the sources; the build leaves it there, so read from src/. */
function corpusFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return join(here.includes('/dist/') ? here.replace(/\/dist\//, '/src/') : here, 'loops.txt');
}

export function loadLoopCorpus(path = corpusFile()): LoopCase[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const cases: LoopCase[] = [];
  let current: LoopCase | undefined;
  let block: { times: number; lines: string[] } | undefined;
  let ids = 0;
  const flush = (): void => {
    if (block !== undefined && current !== undefined)
      for (let i = 0; i < block.times; i++)
        for (const line of block.lines) current.events.push(...step(line, () => String(++ids)));
    block = undefined;
  };
  lines.forEach((raw, index) => {
    const where = `loops.txt:${index + 1}`;
    if (raw.trim() === '' || raw.startsWith('#')) return;
    if (raw.startsWith('  ')) {
      if (block === undefined) throw new Error(`${where}: an indented line outside a repeat`);
      block.lines.push(raw.trim());
      return;
    }
    flush();
    const line = raw.trim();
    if (line.startsWith('== ')) {
      current = { name: line.slice(3), expect: 'quiet', events: [], where };
      cases.push(current);
      return;
    }
    if (current === undefined) throw new Error(`${where}: a line before the first case`);
    const expectation = /^expect: (pause|alert|quiet)$/.exec(line);
    if (expectation !== null) {
      current.expect = expectation[1] as LoopExpectation;
      return;
    }
    const repeat = /^repeat (\d+)$/.exec(line);
    if (repeat !== null) {
      block = { times: Number(repeat[1]), lines: [] };
      return;
    }
    current.events.push(...step(line, () => String(++ids)));
  });
  flush();
  return cases;
}

/** One line of a case as the events an agent's adapter would have written. */
function step(line: string, id: () => string): EventBody[] {
  const [verb = '', ...rest] = line.split(' ');
  if (verb === 'usage')
    return [{ type: 'usage.reported', inputTokens: 0, outputTokens: 0, costUsd: Number(rest[0]) }];
  if (verb === 'turn')
    return [
      { type: 'turn.completed', outcome: 'success' },
      { type: 'turn.started', prompt: 'go on' },
    ];
  const [call = '', result] = rest.join(' ').split(' => ');
  const outcome = /^(ok|fail)(?: (\d+))?(?: (".*"))?$/.exec(result ?? 'ok');
  if (outcome === null) throw new Error(`not a result: ${result ?? ''} (in "${line}")`);
  const ok = outcome[1] === 'ok';
  const exitCode = outcome[2] === undefined ? undefined : Number(outcome[2]);
  const output = outcome[3] === undefined ? undefined : (JSON.parse(outcome[3]) as string);
  const tools: Record<string, { tool: string; kind: 'read' | 'edit' | 'run' | 'search' | 'web' | 'other' }> =
    {
      read: { tool: 'Read', kind: 'read' },
      edit: { tool: 'Edit', kind: 'edit' },
      run: { tool: 'Bash', kind: 'run' },
      search: { tool: 'Grep', kind: 'search' },
      web: { tool: 'WebFetch', kind: 'web' },
    };
  const known = tools[verb];
  const [tool, kind, input] =
    known !== undefined
      ? [known.tool, known.kind, call]
      : verb === 'other'
        ? [call.split(' ')[0] ?? '', 'other' as const, call.split(' ').slice(1).join(' ')]
        : [undefined, undefined, undefined];
  if (tool === undefined) throw new Error(`not a step: "${line}"`);
  const toolId = id();
  const files = kind === 'edit' ? [input] : undefined;
  return [
    { type: 'tool.started', toolId, tool, kind, input, ...(files === undefined ? {} : { files }) },
    {
      type: 'tool.finished',
      toolId,
      tool,
      ok,
      ...(exitCode === undefined ? {} : { exitCode }),
      ...(output === undefined ? {} : { output }),
      ...(ok && files !== undefined ? { files } : {}),
    },
  ];
}

/** What the loop rule does with a case's calls: the strongest action it took. */
export function judgeCase(c: LoopCase, limits?: Partial<LoopLimits>): LoopExpectation {
  const settings = resolveRules(undefined);
  const rules = new SessionRules(WORKTREE, undefined);
  const loop = settings.loop === undefined ? undefined : { ...settings.loop, ...limits };
  let got: LoopExpectation = 'quiet';
  let seq = 0;
  for (const body of c.events) {
    const event = { ...body, seq: ++seq, ts: new Date(seq * 1000).toISOString() } as BatonEvent;
    for (const finding of rules.observe(event, { ...settings, loop })) {
      if (finding.rule !== 'loop') continue;
      if (finding.action !== 'alert') got = 'pause';
      else if (got === 'quiet') got = 'alert';
    }
  }
  return got;
}

export function scoreLoops(cases: readonly LoopCase[], limits?: Partial<LoopLimits>): LoopScore {
  const score: LoopScore = {
    cases: cases.length,
    falseAlerts: 0,
    falsePauses: 0,
    missedAlerts: 0,
    missedPauses: 0,
    wrong: [],
  };
  for (const c of cases) {
    const got = judgeCase(c, limits);
    if (got === c.expect) continue;
    score.wrong.push({ name: c.name, where: c.where, expected: c.expect, got });
    if (got === 'pause') score.falsePauses++;
    else if (c.expect === 'quiet') score.falseAlerts++;
    else if (c.expect === 'alert') score.missedAlerts++;
    else score.missedPauses++;
  }
  return score;
}
