/**
 * The loop rule (decision 151, "The loop rule alerts on harmless repeats and pauses on side
 * effects, spend, or long runs"). A loop is the same call ending the same way again and again:
 * one call repeated (`ls missing-dir` ×3), a short cycle of calls repeated (an edit and its undo),
 * or the same command failing with no file changed in between. A repeat that ends differently is
 * not one (a poll whose answer changed, an edit whose result differs): the agent is looking at a
 * world that moves.
 *
 * What it does about a loop is graded: reported (an alert) once it repeats `repeats` times;
 * paused (the turn interrupted, needs input) when its calls have side effects, when it has spent
 * `pauseUsd` since it began, or once it has gone on `pauseAfter` times, well past the point a
 * person would have stopped it. The thresholds were chosen on the corpus beside this file
 * (corpus/loops.txt), scored by loop.test.ts and `npm run bench` (watchdog).
 */
import { createHash } from 'node:crypto';
import type { WatchdogAction } from '../projects/index.js';

export interface LoopLimits {
  /** Repeats at which a loop is reported. */
  repeats: number;
  /** Repeats at which a loop of harmless calls that spend little is paused all the same. */
  pauseAfter: number;
  /** Spend (USD) since the loop began at which it is paused, harmless or not. */
  pauseUsd: number;
  /** The user's own action for every loop at `repeats` (`.baton/config.json`); undefined: graded. */
  action?: WatchdogAction | undefined;
}

/** The defaults, chosen on the corpus (decision 151). */
export const LOOP_DEFAULTS: Readonly<Omit<LoopLimits, 'action'>> = {
  repeats: 3,
  pauseAfter: 10,
  pauseUsd: 0.5,
};

/** One finished call as the rule sees it. */
export interface LoopCall {
  tool: string;
  input: string;
  kind: string | undefined;
  ok: boolean;
  exitCode?: number | undefined;
  output?: string | undefined;
  /** Files the call changed. */
  changed: boolean;
  /** It changes nothing (harmless.ts). */
  harmless: boolean;
}

export interface LoopVerdict {
  action: WatchdogAction;
  /** One call repeated, a cycle of calls, or a command failing again with other calls between. */
  shape: 'call' | 'cycle' | 'failing';
  repeats: number;
  /** What was repeated, one line per call of the cycle. */
  calls: string[];
  why: string;
  spentUsd: number;
  lastOutput: string | undefined;
}

interface Seen {
  call: string;
  /** The call and how it ended: equal for a true repeat. */
  signature: string;
  harmless: boolean;
  /** Spend so far when the call finished. */
  spent: number;
  output: string | undefined;
}

const HISTORY = 64;
/** The longest cycle looked for: an edit and its undo is 2, edit-test-undo-test 4. */
const LONGEST_CYCLE = 4;

export class LoopTracker {
  private history: Seen[] = [];
  private spent = 0;
  /** Failures of each command since a file last changed: `{count, spent at the first, harmless}`. */
  private failures = new Map<string, { count: number; since: number; harmless: boolean }>();
  /** The action already taken for each loop (by its calls), so each level is acted on once. */
  private acted = new Map<string, WatchdogAction>();

  /** Spend reported (priced) while the loop runs. */
  spend(usd: number): void {
    this.spent += usd;
  }

  /** A test run that ended differently: the same command failing again is a fresh attempt. */
  freshAttempt(input: string): void {
    this.failures.delete(input);
  }

  /** One finished call; the verdict when it makes (or escalates) a loop. */
  finished(call: LoopCall, limits: LoopLimits): LoopVerdict | undefined {
    const line = `${call.tool} ${call.input}`;
    const outcome = call.ok
      ? `ok ${digest(call.output)}`
      : `failed ${call.exitCode ?? ''} ${digest(call.output)}`;
    this.history.push({
      call: line,
      signature: `${line}\u0000${outcome}`,
      harmless: call.harmless,
      spent: this.spent,
      output: call.output,
    });
    if (this.history.length > HISTORY) this.history.shift();
    if (call.ok && call.changed) this.failures.clear();
    const cycle = this.cycle();
    const failing = this.failing(call);
    const loop = failing !== undefined && failing.repeats > (cycle?.repeats ?? 0) ? failing : cycle;
    if (loop === undefined || loop.repeats < 2) return undefined;
    const action = this.judge(loop, limits);
    const identity = loop.calls.join('\n');
    if (action === undefined || rank(action) <= rank(this.acted.get(identity))) return undefined;
    if (this.acted.size > HISTORY) this.acted.clear();
    this.acted.set(identity, action);
    return { ...loop, action, lastOutput: call.output };
  }

  private judge(
    loop: Omit<LoopVerdict, 'action' | 'lastOutput'>,
    limits: LoopLimits,
  ): WatchdogAction | undefined {
    if (loop.repeats < limits.repeats) return undefined;
    if (limits.action !== undefined) return limits.action;
    const harmless = loop.why !== 'side effects';
    if (!harmless || loop.spentUsd >= limits.pauseUsd || loop.repeats >= limits.pauseAfter) return 'pause';
    return 'alert';
  }

  /** The longest run of one short cycle repeated at the end of the history. */
  private cycle(): Omit<LoopVerdict, 'action' | 'lastOutput'> | undefined {
    let best: { period: number; repeats: number } | undefined;
    for (let period = 1; period <= LONGEST_CYCLE; period++) {
      const repeats = this.repeatsOf(period);
      // A cycle of two equal calls is the one-call loop, already counted.
      if (period > 1 && new Set(this.history.slice(-period).map((s) => s.signature)).size < period) continue;
      if (repeats >= 2 && (best === undefined || repeats > best.repeats)) best = { period, repeats };
    }
    if (best === undefined) return undefined;
    const span = this.history.slice(-best.period * best.repeats);
    const calls = this.history.slice(-best.period);
    const harmless = calls.every((c) => c.harmless);
    return {
      shape: best.period === 1 ? 'call' : 'cycle',
      repeats: best.repeats,
      calls: calls.map((c) => c.call),
      why: harmless ? 'no side effects' : 'side effects',
      spentUsd: this.spent - (span[0]?.spent ?? this.spent),
    };
  }

  /** How many times the last `period` calls occur back to back at the end of the history. */
  private repeatsOf(period: number): number {
    const h = this.history;
    if (h.length < period) return 0;
    let repeats = 1;
    for (let start = h.length - 2 * period; start >= 0; start -= period) {
      for (let i = 0; i < period; i++)
        if (h[start + i]?.signature !== h[h.length - period + i]?.signature) return repeats;
      repeats++;
    }
    return repeats;
  }

  /** The same command failing again with no file changed since its first failure, other calls between. */
  private failing(call: LoopCall): Omit<LoopVerdict, 'action' | 'lastOutput'> | undefined {
    if (call.kind !== 'run' || call.ok) return undefined;
    const before = this.failures.get(call.input);
    const count = (before?.count ?? 0) + 1;
    const entry = { count, since: before?.since ?? this.spent, harmless: call.harmless };
    this.failures.set(call.input, entry);
    return {
      shape: 'failing',
      repeats: count,
      calls: [`${call.tool} ${call.input}`],
      why: call.harmless ? 'no side effects' : 'side effects',
      spentUsd: this.spent - entry.since,
    };
  }
}

function rank(action: WatchdogAction | undefined): number {
  return action === undefined ? 0 : action === 'alert' ? 1 : action === 'pause' ? 2 : 3;
}

function digest(output: string | undefined): string {
  if (output === undefined || output === '') return '-';
  return createHash('sha1').update(output).digest('hex').slice(0, 12);
}
