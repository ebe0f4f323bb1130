/** The parts of a handoff pack, drawn from a transcript: decisions, files and why, what failed, open questions, reasoning. */
import type { Transcript, TranscriptEntry } from './transcript.js';

const DECISION =
  /\b(decid(?:e|ed|ing)|decision|chose|choose|going with|we will|we'll|I will use|I'll use|settled on|keep(?:ing)? the)\b/i;
const RULED_OUT =
  /\b(ruled out|didn't work|does not work|doesn't work|won't work|instead of|abandon(?:ed)?|reverted|gave up on|not viable)\b/i;
const STOPWORDS = new Set(
  'the and for with that this from into then than have has was were are not but you your our its their what when where which while will would should could about after before over under only also just them they there here some more most very make made does done new old use using'.split(
    ' ',
  ),
);

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The words of a task worth searching for. */
export function keywords(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? [];
  return [...new Set(words.filter((w) => !STOPWORDS.has(w)))].slice(0, 16);
}

function said(t: Transcript): TranscriptEntry[] {
  return t.entries.filter((e) => e.role === 'assistant' || e.role === 'reasoning');
}

/** Decision-like sentences from what the agent said and thought: the fallback when none were recorded. */
export function decisionsFromTranscript(t: Transcript): string[] {
  const found = said(t).flatMap((e) => sentences(e.text).filter((s) => DECISION.test(s) && !s.endsWith('?')));
  return [...new Set(found)];
}

export interface FileNote {
  path: string;
  tools: string[];
  why: string | null;
}

/** Each file the session touched, the tools that touched it, and what the agent said just before. */
export function filesTouched(t: Transcript): FileNote[] {
  const notes = new Map<string, FileNote>();
  let lastSaid: string | null = null;
  for (const entry of t.entries) {
    if (entry.role === 'assistant' || entry.role === 'reasoning') lastSaid = sentences(entry.text)[0] ?? null;
    if (entry.role !== 'tool' || entry.files === undefined) continue;
    for (const path of entry.files) {
      const note = notes.get(path) ?? { path, tools: [], why: null };
      if (!note.tools.includes(entry.tool ?? entry.text)) note.tools.push(entry.tool ?? entry.text);
      note.why ??= lastSaid;
      notes.set(path, note);
    }
  }
  return [...notes.values()];
}

/** Commands that failed, with the first line of why, and sentences that rule something out. */
export function triedAndRuledOut(t: Transcript): string[] {
  const failed = t.entries
    .filter((e) => e.role === 'tool' && e.ok === false)
    .map(
      (e) =>
        `${e.tool ?? e.text} \`${clip(e.input ?? '', 160)}\` failed${e.output === undefined || e.output.trim() === '' ? '' : `: ${clip(e.output.trim().split('\n')[0] ?? '', 200)}`}`,
    );
  const ruled = said(t).flatMap((e) => sentences(e.text).filter((s) => RULED_OUT.test(s)));
  return [...new Set([...failed, ...ruled])];
}

/** Questions to the user left unanswered, and questions in the agent's last message. */
export function openQuestions(t: Transcript): string[] {
  const open: string[] = [];
  t.entries.forEach((entry, i) => {
    if (
      entry.role === 'question' &&
      !t.entries.slice(i + 1).some((e) => e.role === 'answer' || e.role === 'user')
    )
      open.push(entry.text);
  });
  const lastSaid = [...t.entries].reverse().find((e) => e.role === 'assistant');
  if (lastSaid !== undefined) open.push(...sentences(lastSaid.text).filter((s) => s.endsWith('?')));
  return [...new Set(open)];
}

/** Reasoning, most relevant to the new task first (shared words), then the latest. */
export function keyReasoning(t: Transcript, task: string): string[] {
  const words = keywords(task);
  const scored = t.entries
    .map((e, index) => ({ e, index }))
    .filter(({ e }) => e.role === 'reasoning')
    .map(({ e, index }) => ({
      text: e.text,
      index,
      score: words.filter((w) => e.text.toLowerCase().includes(w)).length,
    }));
  scored.sort((a, b) => b.score - a.score || b.index - a.index);
  return scored.map((s) => s.text);
}
