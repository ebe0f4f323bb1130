/**
 * Scenario scripts for the fake model APIs. The server is stateless: the latest real user prompt
 * picks the scenario, and the number of assistant replies since that prompt picks the step, so
 * retries, resumes and fresh processes all land on the right step without any bookkeeping.
 */

/** A tool call the fake model makes. Claude: `{name: 'Write', input: {file_path, content}}`.
 * Codex: `{name: 'exec_command', input: {cmd}}` (a function call) or `{name: 'apply_patch',
 * input: '*** Begin Patch…'}` (a string input makes a custom tool call). */
export interface ToolCall {
  name: string;
  /** OpenAI only: the tool's namespace, as Codex offers MCP tools (`mcp__baton` + `ask_user`). */
  namespace?: string;
  input: Record<string, unknown> | string;
}

export interface Step {
  /** Assistant text. */
  text?: string;
  /** A thinking block (Anthropic) / reasoning summary (OpenAI) before the text. */
  thinking?: string;
  tools?: ToolCall[];
  /** Answer with this HTTP error instead of a reply (`body`: the exact body, else the API's usual shape). */
  error?: { status: number; message?: string; body?: string };
  /** Wait this long before answering (the headers included). */
  delayMs?: number;
  usage?: { input: number; output: number };
  /** Extra response headers, e.g. Anthropic's `anthropic-ratelimit-unified-*` subscription windows. */
  headers?: Record<string, string>;
}

export interface Scenario {
  /** Matches when the latest user prompt contains this text. */
  prompt: string;
  steps: Step[];
}

export const DEFAULT_USAGE = { input: 100, output: 20 } as const;

/** What an unmatched prompt (or a step past a scenario's end) gets: a plain final answer, and a recorded failure. */
export const FALLBACK_STEP: Step = { text: 'OK.' };

export interface Conversation {
  /** Text of the latest real user prompt ('' when none was found). */
  prompt: string;
  /** Assistant replies since that prompt. */
  repliesSince: number;
}

export interface Selection {
  scenario: Scenario | undefined;
  stepIndex: number;
  step: Step;
}

export function selectStep(scenarios: readonly Scenario[], conversation: Conversation): Selection {
  const scenario = scenarios.find((s) => conversation.prompt.includes(s.prompt));
  const stepIndex = conversation.repliesSince;
  const step = scenario?.steps[stepIndex] ?? FALLBACK_STEP;
  return { scenario, stepIndex, step };
}

/**
 * Counts assistant replies after `from`: one per maximal run of assistant-side entries, because
 * a single reply can appear as several consecutive entries (text plus tool calls).
 */
export function countReplies(entries: readonly ('assistant' | 'other')[], from: number): number {
  let replies = 0;
  let inRun = false;
  for (let i = from + 1; i < entries.length; i++) {
    const assistant = entries[i] === 'assistant';
    if (assistant && !inRun) replies++;
    inRun = assistant;
  }
  return replies;
}
