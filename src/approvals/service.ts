/**
 * Approvals, the supervisor's side: allow rules added, listed and revoked; an approval a rule
 * covers answered as it arrives (auto-approval), and said on the bus; "approve and always allow"
 * (`approveAlways`). It takes the sessions domain through an interface (ApprovalSessions), as the
 * radar does: answering a session's approval is a command of its host, which sessions/ sends.
 * The hosts answer most covered calls themselves, from a copy of the rules (answered.ts).
 */
import { homedir } from 'node:os';
import type { WorkspaceBus } from '../bus/index.js';
import type { BatonEvent } from '../events/index.js';
import { PolicyAllowAdded, PolicyAllowRevoked, PolicyAutoApproved } from '../events/workspace.js';
import type { PendingCall } from '../policy/index.js';
import { AllowRuleNotFoundError, errorMessage, GateWinsError, InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { AllowRuleRow, AllowRules } from '../settings/index.js';
import { findRepository } from '../worktrees/index.js';
import { matchAllowRule, patternWords } from './allow.js';
import { writeAllowRules } from './answered.js';

const log = createLogger('approvals');

interface SessionFacts {
  id: string;
  name: string;
  project_name: string;
  project_root: string;
  worktree: string;
}

/** What approvals need of the sessions domain. */
export interface ApprovalSessions {
  get(id: string): SessionFacts | undefined;
  resolve(ref: string, cwd?: string): SessionFacts;
  latestEvents(sessionId: string, types: string[], limit: number): BatonEvent[];
  resolveApproval(
    ref: string,
    decision: 'allow' | 'deny',
    reason?: string,
    requestId?: string,
  ): Promise<unknown>;
  on(event: 'event', listener: (sessionId: string, event: BatonEvent) => void): unknown;
  off(event: 'event', listener: (sessionId: string, event: BatonEvent) => void): unknown;
}

type Source = AllowRuleRow['source'];

export interface ApprovalServiceOptions {
  /** The user's home, where `~` in commands points (default the process's). */
  home?: string;
  /** Baton's state folder: where the copy of the rules the session hosts answer with is kept (answered.ts). */
  stateHome?: string;
  /** Changes to the rules made elsewhere (a shared store): the copy is written again. */
  onChange?: (listener: (table: string) => void) => () => void;
}

export class ApprovalService {
  private readonly home: string;
  /** One copy written at a time, the latest rules last. */
  private mirroring: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessions: ApprovalSessions,
    private readonly store: AllowRules,
    private readonly bus: WorkspaceBus,
    private readonly options: ApprovalServiceOptions = {},
  ) {
    this.home = options.home ?? homedir();
  }

  /**
   * Keeps the hosts' copy of the rules current, and answers approvals an allow rule covers that
   * a host did not (one started before its copy existed); returns its removal. Resolves once the
   * first copy is written.
   */
  async watch(): Promise<() => void> {
    const listener = (sessionId: string, event: BatonEvent): void => {
      if (event.type === 'approval.resolved' && event.allowRule !== undefined) {
        this.answeredByHost(sessionId, event.requestId, event.allowRule);
        return;
      }
      if (event.type !== 'state.changed' || event.to !== 'needs_input' || event.reason?.kind !== 'approval')
        return;
      this.autoApprove(sessionId, event.reason.requestId).catch((error: unknown) =>
        log.warn('an allow rule could not answer an approval', {
          session: sessionId,
          error: errorMessage(error),
        }),
      );
    };
    this.sessions.on('event', listener);
    const offChange = this.options.onChange?.((table) => {
      if (table === 'allow_rules') void this.mirror();
    });
    await this.mirror();
    return () => {
      this.sessions.off('event', listener);
      offChange?.();
    };
  }

  /** Writes every rule to the hosts' copy; a failure is logged, and the supervisor's own check still answers. */
  private mirror(): Promise<void> {
    const stateHome = this.options.stateHome;
    if (stateHome === undefined) return Promise.resolve();
    this.mirroring = this.mirroring.then(async () => {
      try {
        writeAllowRules(stateHome, await this.store.list());
      } catch (error) {
        log.warn('could not write the allow rules for the session hosts', { error: errorMessage(error) });
      }
    });
    return this.mirroring;
  }

  /** A host answered with an allow rule: said on the bus as the supervisor's own answers are. */
  private answeredByHost(sessionId: string, requestId: string, ruleId: number): void {
    const session = this.sessions.get(sessionId);
    const request = this.sessions
      .latestEvents(sessionId, ['approval.requested'], 20)
      .find((e) => e.type === 'approval.requested' && e.requestId === requestId);
    if (session === undefined || request?.type !== 'approval.requested') return;
    this.bus.publish(PolicyAutoApproved, {
      sessionId,
      name: session.name,
      project: session.project_name,
      ruleId,
      requestId,
      tool: request.tool,
      input: request.input,
    });
  }

  private async autoApprove(sessionId: string, requestId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    const request = this.sessions
      .latestEvents(sessionId, ['approval.requested'], 5)
      .find((e) => e.type === 'approval.requested' && e.requestId === requestId);
    if (session === undefined || request?.type !== 'approval.requested') return;
    const rule = matchAllowRule(
      await this.store.list(session.project_root),
      request,
      session.worktree,
      this.home,
    );
    if (rule === undefined) return;
    await this.sessions.resolveApproval(sessionId, 'allow', `approved by allow rule ${rule.id}`, requestId);
    this.bus.publish(PolicyAutoApproved, {
      sessionId,
      name: session.name,
      project: session.project_name,
      ruleId: rule.id,
      requestId,
      tool: request.tool,
      input: request.input,
    });
  }

  /** The rules that apply in a repository (its own and everyone's); every rule when unset. */
  list(root?: string): Promise<AllowRuleRow[]> {
    return this.store.list(root);
  }

  /** The rule that would answer `call` in the repository `root`, checked out at `worktree`. */
  async ruleFor(root: string, call: PendingCall, worktree: string): Promise<AllowRuleRow | undefined> {
    return matchAllowRule(await this.store.list(root), call, worktree, this.home);
  }

  async allow(
    rule: { pattern?: string | undefined; tool?: string | undefined; here: boolean },
    cwd: string,
    source: Source = 'cli',
  ): Promise<AllowRuleRow> {
    const project = rule.here ? (await findRepository(cwd)).root : null;
    return this.add({
      project_root: project,
      tool: rule.tool ?? null,
      pattern: rule.pattern ?? null,
      source,
    });
  }

  /**
   * Approves a session's pending call and allows its like from now on in its repository: the
   * command (as a pattern) for a tool that runs commands, the tool itself otherwise. Refused when
   * the gate asked for this approval: the gate wins over allow rules.
   */
  async approveAlways(
    ref: string,
    requestId: string | undefined,
    reason: string | undefined,
    cwd: string | undefined,
    source: Source,
  ): Promise<AllowRuleRow> {
    const session = this.sessions.resolve(ref, cwd);
    const requests = this.sessions
      .latestEvents(session.id, ['approval.requested'], 20)
      .filter((e) => e.type === 'approval.requested');
    const request = requestId === undefined ? requests[0] : requests.find((e) => e.requestId === requestId);
    if (request?.type !== 'approval.requested')
      throw new InvalidInputError(
        `Session ${session.name} has no pending approval${requestId === undefined ? '' : ` with id ${requestId}`}.`,
      );
    if (request.gate !== undefined) throw new GateWinsError(request.gate, `\`${request.input}\``);
    const pattern = request.kind === 'run' ? request.input.trim() : null;
    if (pattern !== null && patternWords(pattern, session.worktree, this.home) === undefined) {
      throw new InvalidInputError(
        `\`${pattern}\` is not one plain command, so it cannot become an allow rule; approve it once, or add a rule with \`baton policy allow "<command prefix>" --here\`.`,
      );
    }
    await this.sessions.resolveApproval(session.id, 'allow', reason, request.requestId);
    return this.add({
      project_root: session.project_root,
      tool: pattern === null ? request.tool : null,
      pattern,
      source,
    });
  }

  async revoke(id: string): Promise<AllowRuleRow> {
    const number = Number(id);
    const rule = Number.isInteger(number) && number > 0 ? await this.store.get(number) : undefined;
    if (rule === undefined || !(await this.store.remove(rule.id))) throw new AllowRuleNotFoundError(id);
    // Before the answer: once `revoke` returns, no host answers with the rule.
    await this.mirror();
    this.bus.publish(PolicyAllowRevoked, {
      ruleId: rule.id,
      project: rule.project_root,
      tool: rule.tool,
      pattern: rule.pattern,
    });
    return rule;
  }

  private async add(rule: Omit<AllowRuleRow, 'id' | 'created_at'>): Promise<AllowRuleRow> {
    if (rule.pattern !== null && patternWords(rule.pattern, '/', this.home) === undefined) {
      throw new InvalidInputError(
        `The pattern \`${rule.pattern}\` must be one plain command (words, no pipes, lists or variables), e.g. "npm test".`,
      );
    }
    const row = await this.store.add(rule);
    await this.mirror();
    this.bus.publish(PolicyAllowAdded, {
      ruleId: row.id,
      project: row.project_root,
      tool: row.tool,
      pattern: row.pattern,
      source: row.source,
    });
    return row;
  }
}
