/**
 * The subscription windows agents report (Codex's 5-hour and weekly used-%), per agent and
 * window, with a burn rate in percent per hour and when 100% is reached at that rate. A reset
 * (the percentage going down) starts the window's series afresh.
 */
import { formatDuration } from './burn.js';

export interface WindowReport {
  name: string;
  usedPercent: number;
  windowMinutes?: number | undefined;
  resetsAt?: string | undefined;
}

export interface WindowView {
  agent: string;
  name: string;
  usedPercent: number;
  /** What is left of the window: 100 less the used share, never below 0. */
  remainingPercent: number;
  resetsAt: string | null;
  /** Percentage points per hour over the reports since the last reset; null with one report. */
  perHour: number | null;
  /** Milliseconds until 100% at that rate; null when it does not rise. */
  exhaustsInMs: number | null;
  /** "the 5h window runs out in 34 min at this rate", or what is known. */
  summary: string;
  reportedAt: string;
}

interface Series {
  agent: string;
  report: WindowReport;
  points: { at: number; used: number }[];
}

/** Reports older than this do not shape the rate. */
const RATE_SPAN_MS = 60 * 60_000;

export class AgentWindows {
  private readonly series = new Map<string, Series>();

  add(agent: string, windows: readonly WindowReport[], at: number): void {
    for (const report of windows) {
      const key = `${agent}\u0000${report.name}`;
      const known = this.series.get(key);
      const last = known?.points[known.points.length - 1];
      const points =
        known === undefined || (last !== undefined && report.usedPercent < last.used)
          ? []
          : known.points.filter((p) => p.at > at - RATE_SPAN_MS);
      points.push({ at, used: report.usedPercent });
      this.series.set(key, { agent, report, points });
    }
  }

  list(now: number): WindowView[] {
    return [...this.series.values()]
      .map((s) => view(s, now))
      .sort((a, b) => a.agent.localeCompare(b.agent) || a.name.localeCompare(b.name));
  }
}

function view(series: Series, now: number): WindowView {
  const { points, report } = series;
  const first = points[0];
  const last = points[points.length - 1];
  let perHour: number | null = null;
  if (first !== undefined && last !== undefined && last.at > first.at)
    perHour = ((last.used - first.used) / (last.at - first.at)) * 3_600_000;
  const used = report.usedPercent;
  let exhaustsInMs: number | null = null;
  if (used >= 100) exhaustsInMs = 0;
  else if (perHour !== null && perHour > 0) exhaustsInMs = Math.round(((100 - used) / perHour) * 3_600_000);
  const resetsAt = report.resetsAt ?? null;
  const resetsFirst = exhaustsInMs !== null && resetsAt !== null && Date.parse(resetsAt) - now < exhaustsInMs;
  const remaining = Math.max(0, 100 - used);
  const resetsIn = resetsAt === null ? null : Date.parse(resetsAt) - now;
  let summary = `${series.agent} ${report.name} window ${Math.round(used)}% used, ${Math.round(remaining)}% left`;
  if (resetsIn !== null && resetsIn > 0) summary += `, resets in ${formatDuration(resetsIn)}`;
  if (exhaustsInMs === 0) summary += '; used up';
  else if (resetsFirst) summary += '; it resets before it runs out at this rate';
  else if (exhaustsInMs !== null)
    summary += `; the ${report.name} window runs out in ${formatDuration(exhaustsInMs)} at this rate`;
  return {
    agent: series.agent,
    name: report.name,
    usedPercent: used,
    remainingPercent: remaining,
    resetsAt,
    perHour,
    exhaustsInMs,
    summary,
    reportedAt: new Date(last?.at ?? now).toISOString(),
  };
}
