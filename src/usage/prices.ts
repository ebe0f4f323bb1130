/**
 * The price table: US dollars per million tokens, per model, as the vendors list them on the date
 * below. It is data: update the rows and the date together. Agents that report their own cost
 * (Claude) keep it; the table prices the others (Codex reports tokens only). A model that is not
 * here is never priced at $0: its tokens are counted and the cost is shown as unknown.
 */
export interface ModelPrice {
  /** Fresh input tokens. */
  input: number;
  output: number;
  /** Input read from the prompt cache. */
  cacheRead: number;
  /** Input written to the prompt cache (Claude); the input price when the vendor has none. */
  cacheWrite: number;
}

export interface PriceTable {
  /** When these prices were taken from the vendors' pages (YYYY-MM-DD). */
  date: string;
  models: Record<string, ModelPrice>;
}

export const PRICE_TABLE: PriceTable = {
  date: '2026-11-24',
  models: {
    // OpenAI (Codex)
    'gpt-5.5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    'gpt-5.5-codex': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    'gpt-5.5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
    'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    'gpt-5-codex': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
    'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 },
    // Anthropic (Claude)
    'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    // The models the bundled Claude Code knows by name (cache: reads 0.1×, 5-minute writes 1.25× of input).
    'claude-opus-4-6': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    'claude-opus-4-7': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    'claude-opus-4-8': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    'claude-sonnet-4-6': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  },
};
