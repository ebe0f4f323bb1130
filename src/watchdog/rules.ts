/**
 * The event-driven intervention triggers, per session: a loop (the same tool call, or the same
 * failing command with nothing changed in between), repeated errors, edits outside the task's
 * scope, and turns that change nothing (no file, no test result). Pure: events in, findings out,
 * so each is unit-tested.
 */
import { isAbsolute, relative } from 'node:path';
import picomatch from 'picomatch';
import type { BatonEvent } from '../events/index.js';
import type { WatchdogAction, WatchdogConfig } from '../projects/index.js';
import type { AlertRule } from '../events/workspace.js';
import type { z } from 'zod';
import { isHarmless } from './harmless.js';
import { LOOP_DEFAULTS, LoopTracker, type LoopLimits, type LoopVerdict } from './loop.js';
import { testOutcome, testRunOf, type CheckCommand } from './test-runs.js';

export interface Rule<T> {
  action: WatchdogAction;
  limit: T;
}

export interface RuleSettings {
  noProgressMs: Rule<number> | undefined;
  loop: LoopLimits | undefined;
  repeatedErrors: Rule<number> | undefined;
  outOfScope: Rule<null> | undefined;
  approvalWaitMs: Rule<number> | undefined;
  noChange: Rule<number> | undefined;
  /** How long a session rests ready for review before its host is let go; undefined: kept. */
  idleMs: number | undefined;
  /** The repository's merge check: a run of it is a test run, as the common runners' are. */
  check: CheckCommand;
}

export interface Finding {
  rule: z.infer<typeof AlertRule>;
  message: string;
  evidence: string[];
  action: WatchdogAction;
  /** What makes it the same finding again (added to the session's id): one open loop alert per session, say. */
  key: string;
}

const MINUTE = 60_000;

/**
 * The repository's settings over the defaults: no progress 10 min, loops graded (loop.ts), the rest
 * alert; idle hosts let go after `idleMs`, the user's default (undefined: kept). `check` is the
 * repository's merge check, whose runs count as test runs.
 */
export function resolveRules(
  config: WatchdogConfig | undefined,
  idleMs?: number,
  check?: CheckCommand,
): RuleSettings {
  const c = config ?? {};
  const pick = <T, C extends { action?: WatchdogAction | undefined }>(
    value: false | C | undefined,
    action: WatchdogAction,
    limit: (given: C | undefined) => T,
  ): Rule<T> | undefined =>
    value === false ? undefined : { action: value?.action ?? action, limit: limit(value) };
  return {
    noProgressMs: pick(c.noProgress, 'alert', (v) => (v?.minutes ?? 10) * MINUTE),
    loop:
      c.loop === false
        ? undefined
        : {
            repeats: c.loop?.repeats ?? LOOP_DEFAULTS.repeats,
            pauseAfter: c.loop?.pauseAfter ?? LOOP_DEFAULTS.pauseAfter,
            pauseUsd: c.loop?.pauseUsd ?? LOOP_DEFAULTS.pauseUsd,
            action: c.loop?.action,
          },
    repeatedErrors: pick(c.repeatedErrors, 'alert', (v) => v?.count ?? 3),
    outOfScope: pick(c.outOfScope, 'alert', () => null),
    approvalWaitMs: pick(c.approvalWait, 'alert', (v) => (v?.minutes ?? 15) * MINUTE),
    noChange: pick(c.noChange, 'alert', (v) => v?.turns ?? 5),
    idleMs: c.idle === false ? undefined : c.idle?.minutes === undefined ? idleMs : c.idle.minutes * MINUTE,
    check,
  };
}

/** One session's running counts. */
export class SessionRules {
  private readonly calls = new Map<
    string,
    { tool: string; input: string; kind: string | undefined; test: string | undefined }
  >();
  private readonly loops = new LoopTracker();
  private errors: string[] = [];
  /** Spend comes priced from the watchdog (`spend`). */
  private priced = false;
  private changedThisTurn = false;
  private quietTurns = 0;
  /**
   * Each test command's outcomes (digests) since a file last changed, its last one first: only an
   * outcome not seen in that stretch is a change, so a flaky suite flipping between two results
   * is not progress. The test runs of the turns since the last change are kept for the evidence.
   */
  private testResults = new Map<string, { last: string; seen: Set<string> }>();
  private quietRuns = new Map<
    string,
    { detail: string; passed: boolean; runs: number; outcomes: Set<string> }
  >();
  private readonly inScope: ((path: string) => boolean) | undefined;

  constructor(
    private readonly worktree: string,
    private readonly scope: readonly string[] | undefined,
  ) {
    this.inScope =
      scope === undefined || scope.length === 0 ? undefined : picomatch([...scope], { dot: true });
  }

  observe(event: BatonEvent, rules: RuleSettings): Finding[] {
    switch (event.type) {
      case 'tool.started':
        return this.started(event, rules);
      case 'tool.finished':
        return this.finished(event, rules);
      case 'error.raised':
        return this.error(event.message, rules);
      case 'turn.completed':
        return this.turnEnded(event.outcome, rules);
      case 'usage.reported':
        // The priced spend comes through `spend` when the watchdog prices it; an agent's own figure otherwise.
        if (!this.priced) this.loops.spend(event.costUsd ?? 0);
        return [];
      default:
        return [];
    }
  }

  private started(event: Extract<BatonEvent, { type: 'tool.started' }>, rules: RuleSettings): Finding[] {
    const test = event.kind === 'run' ? testRunOf(event.input, rules.check, this.worktree) : undefined;
    this.calls.set(event.toolId, { tool: event.tool, input: event.input, kind: event.kind, test });
    return event.kind === 'edit' ? this.scopeCheck(event.files ?? [], rules) : [];
  }

  /** Spend priced by the watchdog's ledger (every agent's, in USD): from then on the agent's own figure is not counted. */
  spend(usd: number): void {
    this.priced = true;
    this.loops.spend(usd);
  }

  private finished(event: Extract<BatonEvent, { type: 'tool.finished' }>, rules: RuleSettings): Finding[] {
    const call = this.calls.get(event.toolId);
    this.calls.delete(event.toolId);
    const files = event.files ?? [];
    if (event.ok && files.length > 0) {
      // Something changed: the same command failing again is a fresh attempt (loop.ts forgets its failures).
      this.changedThisTurn = true;
      this.testResults = new Map(
        [...this.testResults].map(([test, r]) => [test, { last: r.last, seen: new Set([r.last]) }]),
      );
    }
    // A test run that ends differently is a fresh attempt too, even with no file changed (a fixed environment, say).
    if (
      call?.test !== undefined &&
      this.testRan(call.test, testOutcome(event.ok, event.exitCode, event.output))
    )
      this.loops.freshAttempt(call.input);
    const findings = this.loopCheck(call, event, rules);
    if (event.ok) {
      this.errors = [];
      return findings;
    }
    return [
      ...this.error(
        `${event.tool} failed${event.exitCode === undefined ? '' : ` (exit ${event.exitCode})`}: ${short(call?.input ?? '', 120)}`,
        rules,
      ),
      ...findings,
    ];
  }

  private loopCheck(
    call: { tool: string; input: string; kind: string | undefined } | undefined,
    event: Extract<BatonEvent, { type: 'tool.finished' }>,
    rules: RuleSettings,
  ): Finding[] {
    const limits = rules.loop;
    if (call === undefined || limits === undefined) return [];
    const verdict = this.loops.finished(
      {
        tool: call.tool,
        input: call.input,
        kind: call.kind,
        ok: event.ok,
        exitCode: event.exitCode,
        output: event.output,
        changed: (event.files ?? []).length > 0,
        harmless: isHarmless(call.kind, call.input, this.worktree, rules.check),
      },
      limits,
    );
    return verdict === undefined ? [] : [loopFinding(verdict)];
  }

  private error(what: string, rules: RuleSettings): Finding[] {
    this.errors.push(what);
    const rule = rules.repeatedErrors;
    if (rule === undefined || this.errors.length !== rule.limit) return [];
    return [
      {
        rule: 'repeated_errors',
        message: `${rule.limit} errors in a row`,
        evidence: this.errors.slice(-rule.limit).map((e) => short(e, 200)),
        action: rule.action,
        key: 'errors',
      },
    ];
  }

  /** A test run's outcome: one the same command has not had since a file last changed is a change, as an edit is. */
  private testRan(test: string, outcome: ReturnType<typeof testOutcome>): boolean {
    const before = this.testResults.get(test);
    const changed = before !== undefined && !before.seen.has(outcome.digest);
    this.testResults.set(test, {
      last: outcome.digest,
      seen: (before?.seen ?? new Set()).add(outcome.digest),
    });
    const seen = this.quietRuns.get(test);
    this.quietRuns.set(test, {
      detail: outcome.detail,
      passed: outcome.passed,
      runs: (seen?.runs ?? 0) + 1,
      outcomes: (seen?.outcomes ?? new Set()).add(outcome.digest),
    });
    if (changed) this.changedThisTurn = true;
    return changed;
  }

  private turnEnded(outcome: string, rules: RuleSettings): Finding[] {
    this.quietTurns = this.changedThisTurn ? 0 : this.quietTurns + 1;
    if (this.changedThisTurn) this.quietRuns = new Map();
    this.changedThisTurn = false;
    if (outcome === 'success') this.errors = [];
    const rule = rules.noChange;
    if (rule === undefined || this.quietTurns !== rule.limit) return [];
    return [
      {
        rule: 'no_change',
        message: `${rule.limit} turns in a row changed no file and no test result`,
        evidence: [this.quietEvidence()],
        action: rule.action,
        key: 'turns',
      },
    ];
  }

  /** `5 turns: no file changed; `npm test` failed the same way each time (3 failed, 12 passed)`. */
  private quietEvidence(): string {
    const runs = [...this.quietRuns].map(([test, r]) => {
      const how = r.passed ? 'passed' : 'failed';
      if (r.runs === 1) return `\`${short(test)}\` ran once and ${how} (${r.detail})`;
      if (r.outcomes.size === 1) return `\`${short(test)}\` ${how} the same way each time (${r.detail})`;
      return `\`${short(test)}\` ran ${r.runs} times, flipping between ${r.outcomes.size} results it had already had (last: ${how}, ${r.detail})`;
    });
    return [
      `${this.quietTurns} turns: no file changed`,
      ...(runs.length === 0 ? ['no tests run'] : runs),
    ].join('; ');
  }

  private scopeCheck(files: readonly string[], rules: RuleSettings): Finding[] {
    const rule = rules.outOfScope;
    if (rule === undefined || this.inScope === undefined) return [];
    const outside = files.filter((file) => {
      const rel = this.relative(file);
      return rel === undefined || !(this.inScope?.(rel) ?? true);
    });
    return outside.map((file) => ({
      rule: 'out_of_scope' as const,
      message: `an edit outside the task's scope: ${file}`,
      evidence: [`edited ${file}`, `scope: ${this.scope?.join(', ') ?? ''}`],
      action: rule.action,
      key: `scope:${file}`,
    }));
  }

  /** The path inside the worktree, or undefined when it is outside. */
  private relative(file: string): string | undefined {
    const rel = isAbsolute(file) ? relative(this.worktree, file) : file;
    return rel.startsWith('..') || isAbsolute(rel) ? undefined : rel.replace(/^\.\//, '');
  }
}

/** `the same failing command 3 times …` with what was repeated, why it paused or only alerted, and the last output. */
function loopFinding(loop: LoopVerdict): Finding {
  const first = short(loop.calls[0] ?? '');
  const what =
    loop.shape === 'failing'
      ? `the same failing command ${loop.repeats} times with no file changed in between: ${first}`
      : loop.shape === 'call'
        ? `the same call ${loop.repeats} times, ending the same way: ${first}`
        : `the same ${loop.calls.length} calls ${loop.repeats} times over: ${loop.calls.map((c) => short(c, 40)).join(' → ')}`;
  const spent = `$${loop.spentUsd.toFixed(2)} spent in the loop`;
  return {
    rule: 'loop',
    message: what,
    evidence: [
      ...loop.calls.map((c) => `${loop.repeats}× ${short(c, 200)}`),
      `${loop.why}; ${spent}; ${loop.action === 'pause' ? 'paused' : 'reported only'}`,
      ...(loop.lastOutput === undefined ? [] : [`last output: ${short(loop.lastOutput, 300)}`]),
    ],
    action: loop.action,
    // One open alert for a reported loop, another for the pause it may grow into.
    key: loop.action === 'alert' ? 'loop' : 'loop:pause',
  };
}

function short(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
