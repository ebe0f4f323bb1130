/**
 * The supervisor's side of the policy: allow rules (added, listed, revoked, and applied to
 * approvals as they arrive), `baton policy test`, and the rules in force for a repository. It
 * takes the session manager through an interface (PolicySessions), as the radar does.
 */
import { homedir, tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { WorkspaceBus } from '../bus/index.js';
import type { BatonEvent } from '../events/index.js';
import { PolicyAllowAdded, PolicyAllowRevoked, PolicyAutoApproved } from '../events/workspace.js';
import { loadRepoConfig } from '../projects/index.js';
import { AllowRuleNotFoundError, errorMessage, GateWinsError, InvalidInputError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import type { AllowRuleRow, AllowRules } from '../settings/index.js';
import { findRepository, git, gitOut } from '../worktrees/index.js';
import { realDisk, userPlaces } from './context.js';
import { matchAllowRule, patternWords } from './allow.js';
import { writeAllowRules } from './answered.js';
import { compilePolicy, describeRules, evaluate } from './gate.js';
import type { ToolCall, Verdict } from './types.js';

const log = createLogger('policy');

interface SessionFacts {
  id: string;
  name: string;
  project_name: string;
  project_root: string;
  worktree: string;
}

/** What the policy needs of the sessions domain. */
export interface PolicySessions {
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

export interface PolicyServiceOptions {
  /** The user's home, where `~` in commands points (default the process's). */
  home?: string;
  /**
   * Baton's state folder: where the copy of the rules the session hosts answer with is kept
   * (answered.ts), and one of the user's places the gate guards.
   */
  stateHome?: string;
  /** Changes to the rules made elsewhere (a shared store): the copy is written again. */
  onChange?: (listener: (table: string) => void) => () => void;
}

export class PolicyService {
  private readonly home: string;
  /** One copy written at a time, the latest rules last. */
  private mirroring: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessions: PolicySessions,
    private readonly store: AllowRules,
    private readonly bus: WorkspaceBus,
    private readonly options: PolicyServiceOptions = {},
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

  async view(
    cwd: string,
  ): Promise<{ project: string | null; rules: ReturnType<typeof describeRules>; allow: AllowRuleRow[] }> {
    const root = await repositoryOf(cwd);
    const section = root === undefined ? {} : (loadRepoConfig(root).policy ?? {});
    return { project: root ?? null, rules: describeRules(section), allow: await this.store.list(root) };
  }

  /**
   * The verdict on a command (or a file write) as a session's agent would get it: in the checkout
   * `worktree` (default: the one holding `cwd`), on `branch` (default: the branch checked out
   * there), with `base` as the base branch (default: the main checkout's branch), the repository
   * around it and the disk as a session's gate sees them (decision 157).
   */
  async test(
    input: {
      command?: string | undefined;
      path?: string | undefined;
      worktree?: string | undefined;
      branch?: string | undefined;
      base?: string | undefined;
    },
    cwd: string,
  ): Promise<{ verdict: Verdict; allowRule: number | null; worktree: string }> {
    const from = input.worktree === undefined ? cwd : resolve(cwd, input.worktree);
    const repo = await findRepository(from);
    const worktree = await gitOut(from, ['rev-parse', '--show-toplevel']);
    const here = (
      await git(worktree, ['symbolic-ref', '--short', '-q', 'HEAD'], { okExitCodes: [1] })
    ).stdout.trim();
    const policy = compilePolicy(loadRepoConfig(repo.root).policy ?? {}, tmpdir());
    const call: ToolCall =
      input.command !== undefined
        ? { tool: 'Bash', kind: 'run', command: input.command }
        : { tool: 'Edit', kind: 'edit', paths: [input.path ?? ''] };
    // Scripts are compared with the checkout's HEAD: the user's own, unchanged, are not read.
    const surroundings = { worktree, state: this.options.stateHome, baseCommit: repo.head };
    const verdict = evaluate(
      call,
      {
        cwd: worktree,
        worktree,
        home: this.home,
        writable: policy.writable,
        baseBranch: input.base ?? (repo.branch === 'HEAD' ? undefined : repo.branch),
        branch: input.branch ?? (here === '' ? undefined : here),
        userPlaces: userPlaces(surroundings)(),
        disk: realDisk(surroundings),
      },
      policy,
    );
    const pending = {
      tool: call.tool,
      kind: call.kind,
      input: input.command ?? input.path ?? '',
      gate: verdict.action === 'allow' ? undefined : verdict.rule,
    };
    const rule = matchAllowRule(await this.store.list(repo.root), pending, worktree, this.home);
    return { verdict, allowRule: rule?.id ?? null, worktree };
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

async function repositoryOf(cwd: string): Promise<string | undefined> {
  try {
    return (await findRepository(cwd)).root;
  } catch {
    return undefined;
  }
}
