/** Small text helpers the handoff pack and its reading of a transcript share: sentences, clipping, a task's words. */

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
