/** What a vendor's transcript line becomes: normalized events, facts about the session, or a skip with its reason. */
import type { EventBody } from '../../events/index.js';

export type Vendor = 'claude' | 'codex' | 'gemini' | 'opencode';

export interface SessionFacts {
  nativeId?: string;
  cwd?: string;
  title?: string;
}

export interface ParsedLine {
  events: { ts: string; body: EventBody }[];
  facts?: SessionFacts;
  /** Set when the line holds nothing for the transcript: its type, counted in the report. */
  skipped?: string;
}

/** What a parser remembers between lines of one file (a tool call's name, for its result). */
export interface ParseState {
  tools: Map<string, string>;
}

export type LineParser = (line: Record<string, unknown>, state: ParseState) => ParsedLine;

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function obj(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
