/**
 * The handoff pack: what the next agent needs of a finished session, within a token budget.
 * The task and every recorded decision are never cut (a budget too small for them is an error
 * that says so). Then the budget goes to what the transcript means, facts first (decisions with
 * their status, constraints and limits, what was tried and failed, what was ruled out, open
 * questions, files changed), then repeated output collapsed, and excerpts last; every item
 * points to its place in the transcript, and each part says what it left out (decision 230).
 */
import { PackBudgetError } from './errors.js';
import { meaningOf, type DecisionFact, type Fact, type Meaning } from './meaning.js';
import { clip } from './pack-parts.js';
import { redactSecrets } from './redact.js';
import { estimateTokens, transcriptText, type Transcript, type TranscriptEntry } from './transcript.js';

/** The most a default budget gives; a pack may be asked for more with `--budget`. */
export const DEFAULT_BUDGET_TOKENS = 8000;
/** The least a default budget gives: a short transcript's facts are worth their room. */
const MIN_DEFAULT_BUDGET = 1500;
/** The default aims at a tenth of the transcript (decision 230). */
const DEFAULT_SHARE = 0.1;
/** Excerpts come last and at most this many: they are for what no rule caught, not a second transcript. */
const MAX_EXCERPTS = 8;

/** The budget when none is given: a tenth of the source, from 1,500 to 8,000 tokens. */
export function defaultBudget(sourceTokens: number): number {
  return Math.min(
    DEFAULT_BUDGET_TOKENS,
    Math.max(MIN_DEFAULT_BUDGET, Math.ceil(sourceTokens * DEFAULT_SHARE)),
  );
}

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
  /** None: a tenth of the transcript, from 1,500 to 8,000 tokens (`defaultBudget`). */
  budgetTokens?: number | undefined;
  /** Decisions recorded for the work (`.baton/decisions`): never cut. */
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

/** `(#42)`: where an item sits in the transcript. */
const at = (f: Fact): string => `(#${f.seq})`;

export function buildHandoffPack(input: PackInput): HandoffPack {
  const t = input.transcript;
  const sourceTokens = estimateTokens(transcriptText(t));
  const recorded = input.decisions ?? [];
  const decisions = [...(input.carried ?? []), ...recorded].map((d) =>
    d.text === undefined || d.text === '' ? d.title : `${d.title}: ${d.text}`,
  );
  const head = [
    `# Handoff from session ${t.name} (${t.agent}${t.origin === 'baton' ? '' : ', imported from its own transcript'})`,
    '',
    `You are taking over from another coding agent (${t.agent}, session ${t.name}). This is what it decided, did and learned, condensed; trust it, and check the code where it matters.`,
    `A #number is an entry of its transcript (\`baton transcript ${t.name}\` lists them). Facts were drawn from the transcript by text rules and from Baton's records (tool events; decisions recorded through Baton are marked "recorded"); no model summarized it.`,
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
  // A default budget grows to hold what is never cut; a budget the user gave is kept to, or refused.
  const budget = input.budgetTokens ?? Math.max(defaultBudget(sourceTokens), needed + 200);
  if (needed > budget) throw new PackBudgetError(budget, needed, decisions.length);

  const m = meaningOf(t);
  const writer = new SectionWriter(mandatory, budget);
  const current = m.decisions.filter((d) => d.status === 'current');
  const replaced = m.decisions.filter((d) => d.status !== 'current');
  writer.section(
    recorded.length === 0
      ? 'Decisions (drawn from the transcript; none were recorded)'
      : 'Decisions drawn from the transcript',
    current.map((d) => `${clip(d.text, ITEM_CHARS)}${d.source === 'recorded' ? ' [recorded]' : ''} ${at(d)}`),
  );
  writer.section(
    'Replaced decisions (no longer hold; do not follow)',
    replaced.map((d) => replacedLine(d)),
  );
  writer.section('Constraints and limits', m.constraints.map(fact));
  writer.section('Tried and failed', m.tried.map(fact));
  writer.section('Ruled out', m.ruledOut.map(fact));
  writer.section('Open questions', m.questions.map(fact));
  writer.section(
    'Files changed',
    m.files.map(
      (f) =>
        `\`${f.path}\` (${f.tools.join(', ')}${f.edits > 1 ? ` ×${f.edits}` : ''}${f.symbols.length === 0 ? '' : `; ${f.symbols.slice(0, 6).join(', ')}`}) #${f.seq}${f.why === null ? '' : ` — ${clip(f.why.text, 240)}`}`,
    ),
  );
  writer.section(
    'Repeated output (collapsed)',
    m.repeated.map(
      (r) =>
        `\`${r.command}\`: the same output (numbers aside) ${r.count} times${r.failed > 0 ? ` (${r.failed} failed)` : ''}, first #${r.seqs[0]}, last #${r.seqs[r.seqs.length - 1]}; it began: ${clip(r.example, 200)}`,
    ),
  );
  writer.section(
    'Relevant excerpts',
    excerpts(t, input.relevant ?? [], m).map((e) => clip(e, ITEM_CHARS)),
  );
  if (m.filesRead.length > 0)
    writer.section('Files only read', [
      `${m.filesRead.length}: ${m.filesRead
        .slice(0, 12)
        .map((p) => `\`${p}\``)
        .join(', ')}${m.filesRead.length > 12 ? ', …' : ''}`,
    ]);
  const text = writer.text();
  return {
    text,
    tokens: estimateTokens(text),
    budgetTokens: budget,
    sourceTokens,
    decisionsKept: decisions.length,
    omitted: writer.omitted,
  };
}

function fact(f: Fact): string {
  return `${clip(f.text, ITEM_CHARS)} ${at(f)}`;
}

function replacedLine(d: DecisionFact): string {
  const how = d.status === 'reverted' ? 'reverted' : 'superseded';
  return `${how.toUpperCase()}: ${clip(d.text, 300)} ${at(d)} — ${how} by #${d.by?.seq ?? '?'}: ${clip(d.by?.text ?? '', 300)}`;
}

/** The search's most relevant entries, less what the facts cite, repeated output, chatter and replaced decisions. */
function excerpts(t: Transcript, relevant: readonly number[], m: Meaning): string[] {
  const bySeq = new Map<number, TranscriptEntry>(t.entries.map((e) => [e.seq, e]));
  const replaced = m.decisions.filter((d) => d.status !== 'current').map((d) => d.text);
  const out: string[] = [];
  for (const seq of relevant) {
    // A tool's output is stored on the entry of its start: look back for the entry holding this seq.
    const entry = bySeq.get(seq) ?? [...t.entries].reverse().find((e) => e.seq < seq && e.role === 'tool');
    if (entry === undefined || m.cited.has(entry.seq) || m.cited.has(seq)) continue;
    const body =
      entry.role === 'tool'
        ? `${entry.tool ?? ''} ${entry.input ?? ''}${entry.output === undefined ? '' : ` → ${entry.output}`}`
        : entry.text;
    if (m.chatter.has(body.trim()) || replaced.some((r) => body.includes(r))) continue;
    out.push(`(${entry.role}, #${entry.seq}) ${body}`);
    if (new Set(out).size >= MAX_EXCERPTS) break;
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
