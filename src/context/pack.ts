/**
 * The handoff pack: what the next agent needs of a finished session, within a token budget.
 * The task and every recorded decision are never cut (a budget too small for them is an error
 * that says so); then open questions, files and why, what failed, key reasoning and the
 * excerpts most relevant to the new task fill what is left, each part saying what it left out.
 */
import { PackBudgetError } from './errors.js';
import {
  clip,
  decisionsFromTranscript,
  filesTouched,
  keyReasoning,
  openQuestions,
  triedAndRuledOut,
} from './pack-parts.js';
import { redactSecrets } from './redact.js';
import { estimateTokens, transcriptText, type Transcript, type TranscriptEntry } from './transcript.js';

export const DEFAULT_BUDGET_TOKENS = 8000;

/** A decision recorded for the task (by a person or an agent), handed in by the tasks domain. */
export interface RecordedDecision {
  id?: string;
  title: string;
  text?: string;
}

export interface PackInput {
  transcript: Transcript;
  /** What the next session is asked to do. */
  task: string;
  /** The agent that will read it. */
  toAgent: string;
  budgetTokens?: number;
  /** Decisions recorded for the work; when none, the pack draws decision-like lines from the transcript. */
  decisions?: readonly RecordedDecision[];
  /** Decisions an earlier handoff brought into the session: kept like recorded ones. */
  carried?: readonly RecordedDecision[];
  /** Seqs of the transcript's entries most relevant to the new task, best first (from search). */
  relevant?: readonly number[];
}

export interface HandoffPack {
  text: string;
  tokens: number;
  budgetTokens: number;
  sourceTokens: number;
  decisionsKept: number;
  /** How many items each part left out for the budget. */
  omitted: Record<string, number>;
}

const ITEM_CHARS = 600;

export function buildHandoffPack(input: PackInput): HandoffPack {
  const t = input.transcript;
  const budget = input.budgetTokens ?? DEFAULT_BUDGET_TOKENS;
  const recorded = input.decisions ?? [];
  const decisions = [...(input.carried ?? []), ...recorded].map((d) =>
    d.text === undefined || d.text === '' ? d.title : `${d.title}: ${d.text}`,
  );
  const head = [
    `# Handoff from session ${t.name} (${t.agent}${t.origin === 'baton' ? '' : ', imported from its own transcript'})`,
    '',
    `You are taking over from another coding agent (${t.agent}, session ${t.name}). This is what it decided, did and learned, condensed; trust it, and check the code where it matters.`,
    '',
    '## Your task',
    '',
    input.task,
    '',
    '## The earlier task',
    '',
    clip(t.prompt, 2000),
    '',
  ];
  if (decisions.length > 0)
    head.push(
      `## Decisions (${decisions.length}, recorded; keep to them)`,
      '',
      ...decisions.map((d) => `- ${d}`),
      '',
    );
  const mandatory = redactSecrets(head.join('\n'));
  const needed = estimateTokens(mandatory);
  if (needed > budget) throw new PackBudgetError(budget, needed, decisions.length);

  const writer = new SectionWriter(mandatory, budget);
  if (recorded.length === 0)
    writer.section(
      'Decisions (drawn from the transcript; none were recorded)',
      decisionsFromTranscript(t).map((d) => clip(d, ITEM_CHARS)),
    );
  writer.section(
    'Open questions',
    openQuestions(t).map((q) => clip(q, ITEM_CHARS)),
  );
  writer.section(
    'Files touched and why',
    filesTouched(t).map(
      (f) => `\`${f.path}\` (${f.tools.join(', ')})${f.why === null ? '' : ` — ${clip(f.why, 240)}`}`,
    ),
  );
  writer.section(
    'Tried and ruled out',
    triedAndRuledOut(t).map((x) => clip(x, ITEM_CHARS)),
  );
  writer.section(
    'Key reasoning',
    keyReasoning(t, input.task).map((r) => clip(r, ITEM_CHARS)),
  );
  writer.section(
    'Relevant excerpts',
    excerpts(t, input.relevant ?? []).map((e) => clip(e, ITEM_CHARS)),
  );
  const text = writer.text();
  return {
    text,
    tokens: estimateTokens(text),
    budgetTokens: budget,
    sourceTokens: estimateTokens(transcriptText(t)),
    decisionsKept: decisions.length,
    omitted: writer.omitted,
  };
}

function excerpts(t: Transcript, relevant: readonly number[]): string[] {
  const bySeq = new Map<number, TranscriptEntry>(t.entries.map((e) => [e.seq, e]));
  const out: string[] = [];
  for (const seq of relevant) {
    // A tool's output is stored on the entry of its start: look back for the entry holding this seq.
    const entry = bySeq.get(seq) ?? [...t.entries].reverse().find((e) => e.seq < seq && e.role === 'tool');
    if (entry === undefined) continue;
    const body =
      entry.role === 'tool'
        ? `${entry.tool ?? ''} ${entry.input ?? ''}${entry.output === undefined ? '' : ` → ${entry.output}`}`
        : entry.text;
    out.push(`(${entry.role}, #${entry.seq}) ${body}`);
  }
  return [...new Set(out)];
}

/** Adds sections item by item while the budget lasts, and notes what each left out. */
class SectionWriter {
  readonly omitted: Record<string, number> = {};
  private body: string;

  constructor(
    start: string,
    private readonly budget: number,
  ) {
    this.body = start.endsWith('\n\n') ? start : `${start}\n`;
  }

  section(title: string, items: string[]): void {
    if (items.length === 0) return;
    // Room kept for the line saying what was left out.
    const reserve = 20;
    let added = 0;
    let part = `## ${title}\n\n`;
    for (const item of items) {
      const line = `- ${redactSecrets(item)}\n`;
      if (estimateTokens(this.body + part + line) + reserve > this.budget) break;
      part += line;
      added++;
    }
    const left = items.length - added;
    if (added === 0) {
      this.omitted[title] = left;
      return;
    }
    if (left > 0) {
      this.omitted[title] = left;
      part += `- (${left} more left out for the budget)\n`;
    }
    this.body += `${part}\n`;
  }

  text(): string {
    return this.body.trimEnd() + '\n';
  }
}
