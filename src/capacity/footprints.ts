/**
 * A typical footprint per agent kind: what one session of it holds at its peak (host, agent and
 * their children). Until sessions of a kind have been measured, a default figure stands in;
 * a setting overrides both (decision 261).
 */

/**
 * Before any measurement: the agent as users measured it at its upper end (Claude 0.3–0.85 GB,
 * Codex 0.1–0.2 GB) plus Baton's own host and MCP process (~80 MB each, PSS less); the scripted
 * agent runs inside its host.
 */
export const DEFAULT_FOOTPRINT_MB: Readonly<Record<string, number>> = {
  claude: 1000,
  codex: 350,
  scripted: 120,
};
/** A kind nobody has measured and no default names. */
const UNKNOWN_FOOTPRINT_MB = 500;
/** Sessions whose peaks shape a kind's figure: recent ones, so an agent's new version is learnt. */
export const KEPT_SESSIONS = 10;
/** A session measured fewer times than this has not shown its peak yet; it does not teach. */
const TEACHING_SAMPLES = 3;

interface Peak {
  agent: string;
  peakMb: number;
  samples: number;
  lastMb: number;
}

/** Where finished sessions' peaks are kept across restarts (the store's memory_footprints table, decision 308). */
export interface FootprintHistory {
  recent(keep: number): Map<string, number[]>;
  add(sessionId: string, agent: string, peakMb: number, samples: number, keep: number): void;
}

export class Footprints {
  private readonly running = new Map<string, Peak>();
  private readonly finished: Map<string, number[]>;

  constructor(
    private readonly configured: Readonly<Record<string, number>> = {},
    private readonly history?: FootprintHistory,
  ) {
    // What earlier supervisors learnt: a restart does not fall back to the defaults.
    this.finished = history?.recent(KEPT_SESSIONS) ?? new Map<string, number[]>();
  }

  /** One measurement of a running session's process tree. */
  record(sessionId: string, agent: string, mb: number): void {
    const known = this.running.get(sessionId);
    if (known === undefined) this.running.set(sessionId, { agent, peakMb: mb, samples: 1, lastMb: mb });
    else {
      known.peakMb = Math.max(known.peakMb, mb);
      known.samples++;
      known.lastMb = mb;
    }
  }

  /** The session's host is gone: its peak joins its kind's history. */
  ended(sessionId: string): void {
    const peak = this.running.get(sessionId);
    if (peak === undefined) return;
    this.running.delete(sessionId);
    if (peak.samples < TEACHING_SAMPLES) return;
    const list = this.finished.get(peak.agent) ?? [];
    list.push(peak.peakMb);
    this.finished.set(peak.agent, list.slice(-KEPT_SESSIONS));
    this.history?.add(sessionId, peak.agent, peak.peakMb, peak.samples, KEPT_SESSIONS);
  }

  /** Sessions measured now (their ids). */
  tracked(): string[] {
    return [...this.running.keys()];
  }

  /** The last measurement of a running session, undefined before the first. */
  current(sessionId: string): number | undefined {
    return this.running.get(sessionId)?.lastMb;
  }

  /**
   * What one more session of `agent` is expected to hold: the setting, else the largest peak of
   * its recent sessions (running ones measured long enough count too), else the default.
   */
  typical(agent: string): { mb: number; source: 'setting' | 'measured' | 'default' } {
    const set = this.configured[agent];
    if (set !== undefined) return { mb: set, source: 'setting' };
    const peaks = [...(this.finished.get(agent) ?? [])];
    for (const peak of this.running.values())
      if (peak.agent === agent && peak.samples >= TEACHING_SAMPLES) peaks.push(peak.peakMb);
    if (peaks.length > 0) return { mb: Math.max(...peaks), source: 'measured' };
    return { mb: DEFAULT_FOOTPRINT_MB[agent] ?? UNKNOWN_FOOTPRINT_MB, source: 'default' };
  }
}
