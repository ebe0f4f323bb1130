/** What one usage report cost: the agent's own figure when it gave one, else the price table's. */
import { PRICE_TABLE, type ModelPrice, type PriceTable } from './prices.js';

export interface UsageTokens {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number | undefined;
  cacheWriteTokens?: number | undefined;
}

export interface Priced {
  /** Dollars, or null when neither the agent nor the table knows the price (never a silent 0). */
  usd: number | null;
  source: 'agent' | 'table' | 'unknown';
}

const PER_TOKEN = 1 / 1_000_000;

/** The row for `model`: exact, or without a trailing date (`claude-sonnet-4-5-20250929`, `gpt-5.5-2026-01-15`). */
export function priceOf(model: string | undefined, table: PriceTable = PRICE_TABLE): ModelPrice | undefined {
  if (model === undefined || model === '') return undefined;
  const slug = model.toLowerCase();
  return table.models[slug] ?? table.models[slug.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '')];
}

export function priceUsage(
  usage: UsageTokens & { costUsd?: number | undefined },
  model: string | undefined,
  table: PriceTable = PRICE_TABLE,
): Priced {
  if (usage.costUsd !== undefined) return { usd: usage.costUsd, source: 'agent' };
  const price = priceOf(model, table);
  if (price === undefined) return { usd: null, source: 'unknown' };
  const usd =
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      (usage.cacheReadTokens ?? 0) * price.cacheRead +
      (usage.cacheWriteTokens ?? 0) * price.cacheWrite) *
    PER_TOKEN;
  return { usd: Math.round(usd * 1e9) / 1e9, source: 'table' };
}

/**
 * What one usage report cost, as every view counts it (decision 154, "One priced ledger"): the
 * agent's own figure, else the table's price of the report's model, else of the model the
 * session was dispatched with. The ledger and a session's running totals both price with this.
 */
export function reportCost(
  report: UsageTokens & { costUsd?: number | undefined; model?: string | undefined },
  sessionModel: string | null | undefined,
  table: PriceTable = PRICE_TABLE,
): Priced {
  return priceUsage(report, report.model ?? sessionModel ?? undefined, table);
}
