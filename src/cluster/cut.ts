/**
 * The size cap on a mirrored session event: one tool output of megabytes must not become a
 * megabyte row in the workspace log every machine reads. An event over the cap is cut, never
 * refused — its longest strings shortened (marked with CUT_MARK) until it fits, or, when even
 * that cannot make it fit (a huge list of short strings), replaced by its envelope alone.
 */
import type { MirroredEvent } from './events.js';

export const CUT_MARK = '…[cut]';
const SHORTEST_CUT = 64;

export interface Capped {
  event: MirroredEvent;
  /** The serialized size before cutting, when it was cut. */
  originalBytes?: number;
}

export function capEvent(event: MirroredEvent, capBytes: number): Capped {
  const originalBytes = bytes(event);
  if (originalBytes <= capBytes) return { event };
  const copy = structuredClone(event);
  for (let size = originalBytes; size > capBytes; size = bytes(copy)) {
    const longest = longestString(copy);
    // Cutting strings this short saves little, and a list of thousands would be walked once per cut.
    if (longest === undefined || longest.value.length <= SHORTEST_CUT) {
      return {
        event: { seq: event.seq, ts: event.ts, type: event.type, ...('v' in event ? { v: event.v } : {}) },
        originalBytes,
      };
    }
    // Each character cut saves at least one byte; the mark costs its own length back.
    const keep = Math.max(0, longest.value.length - (size - capBytes) - CUT_MARK.length * 3);
    longest.set(withoutLoneHighSurrogate(longest.value.slice(0, keep)) + CUT_MARK);
  }
  return { event: copy, originalBytes };
}

function bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

interface Slot {
  value: string;
  set(value: string): void;
}

/** The longest string anywhere inside `root` (the envelope's own fields are never cut). */
function longestString(root: Record<string, unknown>): Slot | undefined {
  let best: Slot | undefined;
  const visit = (holder: Record<string, unknown> | unknown[], key: string | number, depth: number): void => {
    const value = (holder as Record<string | number, unknown>)[key];
    if (typeof value === 'string') {
      if (best === undefined || value.length > best.value.length)
        best = { value, set: (next) => ((holder as Record<string | number, unknown>)[key] = next) };
      return;
    }
    if (value === null || typeof value !== 'object' || depth > 20) return;
    if (Array.isArray(value)) value.forEach((_, i) => visit(value, i, depth + 1));
    else for (const child of Object.keys(value)) visit(value as Record<string, unknown>, child, depth + 1);
  };
  for (const key of Object.keys(root))
    if (key !== 'seq' && key !== 'ts' && key !== 'type' && key !== 'v') visit(root, key, 0);
  return best;
}

/** A cut between the halves of a surrogate pair leaves a lone half, which PostgreSQL's jsonb refuses. */
function withoutLoneHighSurrogate(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}
