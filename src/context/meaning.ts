/**
 * What a transcript means, for a handoff pack (decision 230): decisions with their status
 * (current, superseded by which, reverted), constraints and limits with their numbers, what was
 * tried and how it failed, options ruled out and why, open questions, files changed and the
 * symbols in them, and repeated output collapsed — each with the seq of its place in the
 * transcript. Drawn by text rules and from Baton's own structure (tool events, decisions recorded
 * through Baton's MCP server); no model is called.
 */
import { clip, sentences } from './pack-parts.js';
import type { Transcript, TranscriptEntry } from './transcript.js';

export interface Fact {
  text: string;
  seq: number;
}

export interface DecisionFact extends Fact {
  status: 'current' | 'superseded' | 'reverted';
  /** The decision that replaced this one. */
  by?: Fact;
  /** `transcript` (a text rule) or `recorded` (Baton's record_decision tool). */
  source: 'transcript' | 'recorded';
}

export interface FileFact {
  path: string;
  seq: number;
  tools: string[];
  edits: number;
  symbols: string[];
  why: Fact | null;
}

export interface RepeatedOutput {
  command: string;
  count: number;
  failed: number;
  seqs: number[];
  example: string;
}

export interface Meaning {
  decisions: DecisionFact[];
  constraints: Fact[];
  tried: Fact[];
  ruledOut: Fact[];
  questions: Fact[];
  files: FileFact[];
  filesRead: string[];
  repeated: RepeatedOutput[];
  /** Seqs of what the parts above cite, and of collapsed output: excerpts skip them. */
  cited: Set<number>;
  /** Sentences said three times or more: chatter, never a fact. */
  chatter: Set<string>;
}

const DECISION =
  /^(?:decision|decided)\b|\b(?:we|I) (?:decided|chose|opted)\b|\b(?:going with|go with|settled on|(?:we|I)(?: will|'ll) use|we will keep|opted for)\b/i;
/** A decision that replaces an earlier one (decision 230: it must overlap the earlier one's words). */
const CHANGE =
  /\b(?:replac(?:e|es|ed|ing)|supersed\w*|revert(?:s|ed|ing)?|switch(?:ed|ing)? from|we switch from|no longer|scrap(?:s|ped)?|overturn\w*|back(?:ed|ing)? out)\b/i;
const REVERT = /\brevert/i;
const TRIED =
  /\b(?:tried|attempted)\b[^.]*\b(?:fail\w*|abandon\w*|did ?n[o']t work|does ?n[o']t work|broke|drift\w*|dropp\w*|too slow|crash\w*)|\b(?:fail\w*|abandon\w*)\b[^.]*\b(?:tried|attempt)/i;
const RULED_OUT =
  /\b(?:ruled out|rule out|rejected|not acceptable|not viable|won't work|will not work|gave up on|decided against)\b|\b(?:is|are) out:/i;
const CONSTRAINT =
  /\b(?:must(?:n't| not)?|has to|have to|needs? to be|at most|at least|no more than|up to|caps?|capped|limit(?:ed)?|maximum|minimum|refuses?|never exceed)\b/i;
const NUMBER_WITH_UNIT =
  /\b\d[\d,.]*\s?(?:[KMGT]i?B|bytes?|ms|s|sec(?:ond)?s?|min(?:ute)?s?|hours?|days?|rows|events|jobs|requests|items|files|%|:1|x)\b/i;
const OPEN_QUESTION = /^(?:open question|question|unresolved|to decide|tbd)\s*[:—-]/i;
const READ_TOOLS = /^(?:Read|Glob|Grep|LS|NotebookRead|WebFetch|WebSearch|web_search)$/;
const SYMBOL = /\b(?:function|class|interface|type|enum|const|let|def|fn|struct)\s+([A-Za-z_$][\w$]*)/g;
const STOP = new Set(
  'the and for with that this from into then than have has was were are not but you your our its their what when where which while will would should could about after before over under only also just them they there here some more most very make made does done new old use using now again because since decision rule keep kept goes'.split(
    ' ',
  ),
);

/** A sentence's content words, crudely stemmed (five letters), for telling which decision a change replaces. */
function stems(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  return new Set(words.filter((w) => !STOP.has(w)).map((w) => w.slice(0, 5)));
}

interface Said {
  text: string;
  seq: number;
  role: TranscriptEntry['role'];
}

function saidSentences(t: Transcript): Said[] {
  return t.entries
    .filter((e) => e.role === 'assistant' || e.role === 'reasoning')
    .flatMap((e) => sentences(e.text).map((text) => ({ text, seq: e.seq, role: e.role })));
}

export function meaningOf(t: Transcript): Meaning {
  const said = saidSentences(t);
  const counts = new Map<string, number>();
  for (const s of said) counts.set(s.text, (counts.get(s.text) ?? 0) + 1);
  const chatter = new Set([...counts].filter(([, n]) => n >= 3).map(([text]) => text));
  const seen = new Set<string>();
  const decisions: DecisionFact[] = [];
  const constraints: Fact[] = [];
  const tried: Fact[] = [];
  const ruledOut: Fact[] = [];
  const questions: Fact[] = [];

  // Decisions recorded through Baton's MCP server are in the tool events: what the agent decided, verbatim.
  const recorded = new Map<number, DecisionFact>();
  for (const e of t.entries) {
    if (e.role !== 'tool' || !/record_decision$/.test(e.tool ?? '')) continue;
    const d = recordedDecision(e);
    if (d !== undefined) recorded.set(e.seq, d);
  }

  let lastSeq = -1;
  for (const s of said) {
    // Recorded decisions take their place in the order of the transcript.
    for (const [seq, d] of recorded) if (seq > lastSeq && seq <= s.seq) decisions.push(d);
    lastSeq = s.seq;
    if (chatter.has(s.text) || seen.has(s.text)) continue;
    seen.add(s.text);
    const fact = { text: s.text, seq: s.seq };
    if (s.text.endsWith('?')) continue;
    if (CHANGE.test(s.text) && replaceDecision(decisions, fact)) continue;
    if (TRIED.test(s.text)) tried.push(fact);
    else if (RULED_OUT.test(s.text)) ruledOut.push(fact);
    else if (DECISION.test(s.text)) decisions.push({ ...fact, status: 'current', source: 'transcript' });
    else if (CONSTRAINT.test(s.text) || NUMBER_WITH_UNIT.test(s.text)) constraints.push(fact);
  }
  for (const [seq, d] of recorded) if (seq > lastSeq) decisions.push(d);

  t.entries.forEach((entry, i) => {
    const later = t.entries.slice(i + 1);
    if (entry.role === 'question' && !later.some((e) => e.role === 'answer' || e.role === 'user'))
      questions.push({ text: entry.text, seq: entry.seq });
  });
  for (const s of said)
    if (!chatter.has(s.text) && OPEN_QUESTION.test(s.text)) questions.push({ text: s.text, seq: s.seq });
  const lastSaid = [...t.entries].reverse().find((e) => e.role === 'assistant');
  if (lastSaid !== undefined)
    for (const q of sentences(lastSaid.text).filter((x) => x.endsWith('?')))
      questions.push({ text: q, seq: lastSaid.seq });

  const repeated = repeatedOutputs(t);
  const failed = failedCommands(t);
  const { files, filesRead } = filesOf(t, chatter, decisions);
  const cited = new Set<number>();
  for (const f of [...decisions, ...constraints, ...tried, ...ruledOut, ...questions, ...failed])
    cited.add(f.seq);
  for (const r of repeated) for (const seq of r.seqs) cited.add(seq);
  return {
    decisions,
    constraints,
    tried: [...tried, ...failed],
    ruledOut,
    questions: uniqueFacts(questions),
    files,
    filesRead,
    repeated,
    cited,
    chatter,
  };
}

function recordedDecision(e: TranscriptEntry): DecisionFact | undefined {
  try {
    const input = JSON.parse(e.input ?? '') as { title?: unknown; text?: unknown };
    if (typeof input.title !== 'string') return undefined;
    const text =
      typeof input.text === 'string' && input.text !== '' ? `${input.title}: ${input.text}` : input.title;
    return { text, seq: e.seq, status: 'current', source: 'recorded' };
  } catch {
    // Codex names the tool but not its arguments: the decision is in `.baton/decisions`, which the pack reads.
    return undefined;
  }
}

/** Marks the current decision `change` replaces (the one sharing most of its words, two at least); false when none does. */
function replaceDecision(decisions: DecisionFact[], change: Fact): boolean {
  const words = stems(change.text);
  let best: DecisionFact | undefined;
  let bestOverlap = 1;
  for (const d of decisions) {
    if (d.status !== 'current') continue;
    const overlap = [...stems(d.text)].filter((w) => words.has(w)).length;
    if (overlap > bestOverlap) {
      best = d;
      bestOverlap = overlap;
    }
  }
  if (best === undefined) return false;
  best.status = REVERT.test(change.text) ? 'reverted' : 'superseded';
  best.by = change;
  decisions.push({ ...change, status: 'current', source: 'transcript' });
  return true;
}

function uniqueFacts(facts: Fact[]): Fact[] {
  const seen = new Set<string>();
  return facts.filter((f) => {
    if (seen.has(f.text)) return false;
    seen.add(f.text);
    return true;
  });
}

/** Output compared without its numbers (durations, counts, line numbers) and spacing. */
function shape(text: string): string {
  return text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

function commandOf(e: TranscriptEntry): string {
  return clip(`${e.tool ?? e.text} ${e.input ?? ''}`, 120);
}

/** Tool runs whose output came back the same (numbers aside) more than once: one example kept, the rest counted. */
function repeatedOutputs(t: Transcript): RepeatedOutput[] {
  const groups = new Map<string, RepeatedOutput>();
  for (const e of t.entries) {
    if (e.role !== 'tool' || e.output === undefined || e.output.trim() === '') continue;
    const key = `${e.tool ?? ''}\n${shape(e.output)}`;
    const group = groups.get(key) ?? {
      command: commandOf(e),
      count: 0,
      failed: 0,
      seqs: [],
      example: e.output,
    };
    group.count++;
    if (e.ok === false) group.failed++;
    group.seqs.push(e.seq);
    groups.set(key, group);
  }
  return [...groups.values()].filter((g) => g.count > 1).sort((a, b) => b.count - a.count);
}

/** Failed commands, once each with how many times (the same command, numbers aside, failing alike is one fact, not twenty). */
function failedCommands(t: Transcript): Fact[] {
  const out = new Map<string, Fact & { times: number }>();
  for (const e of t.entries) {
    if (e.role !== 'tool' || e.ok !== false) continue;
    const why =
      (e.output ?? '')
        .trim()
        .split('\n')
        .find((l) => /error|fail|✗|expected|refused|denied|not found/i.test(l)) ??
      (e.output ?? '').trim().split('\n')[0] ??
      '';
    const key = `${shape(commandOf(e))}\n${shape(why)}`;
    const known = out.get(key);
    if (known !== undefined) known.times++;
    else
      out.set(key, {
        text: `${e.tool ?? e.text} \`${clip(e.input ?? '', 160)}\` failed${why === '' ? '' : `: ${clip(why, 200)}`}`,
        seq: e.seq,
        times: 1,
      });
  }
  return [...out.values()].map((f) => ({
    text: f.times > 1 ? `${f.text} (${f.times} times)` : f.text,
    seq: f.seq,
  }));
}

function filesOf(
  t: Transcript,
  chatter: Set<string>,
  decisions: DecisionFact[],
): { files: FileFact[]; filesRead: string[] } {
  const files = new Map<string, FileFact>();
  const read = new Set<string>();
  let why: Fact | null = null;
  for (const entry of t.entries) {
    if (entry.role === 'assistant' || entry.role === 'reasoning') {
      const first = sentences(entry.text).find((s) => !chatter.has(s));
      if (first !== undefined) why = { text: first, seq: entry.seq };
    }
    if (entry.role !== 'tool' || entry.files === undefined) continue;
    const reading = READ_TOOLS.test(entry.tool ?? '');
    for (const path of entry.files) {
      if (reading) {
        if (!files.has(path)) read.add(path);
        continue;
      }
      read.delete(path);
      const note = files.get(path) ?? { path, seq: entry.seq, tools: [], edits: 0, symbols: [], why: null };
      const tool = entry.tool ?? entry.text;
      if (!note.tools.includes(tool)) note.tools.push(tool);
      note.edits++;
      for (const m of (entry.input ?? '').matchAll(SYMBOL))
        if (!note.symbols.includes(m[1]!)) note.symbols.push(m[1]!);
      // The latest reason is the one that holds: a file's first reason may be a decision later replaced.
      note.why = why;
      files.set(path, note);
    }
  }
  const replaced = new Set(decisions.filter((d) => d.status !== 'current').map((d) => d.text));
  for (const f of files.values()) if (f.why !== null && replaced.has(f.why.text)) f.why = null;
  return { files: [...files.values()], filesRead: [...read] };
}
