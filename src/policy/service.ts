/**
 * The supervisor's side of the gate: `baton policy test` (the verdict a session's agent would get)
 * and the rules in force for a repository. Allow rules are the approvals domain's (src/approvals);
 * the answer of each says which one would answer the call, asked through `allowRules`.
 */
import { homedir, tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { loadRepoConfig } from '../projects/index.js';
import { findRepository, git, gitOut } from '../worktrees/index.js';
import { realDisk, userPlaces } from './context.js';
import { compilePolicy, describeRules, evaluate } from './gate.js';
import type { ToolCall, Verdict } from './types.js';

/** A call waiting for an approval, as an allow rule is matched against it. */
export interface PendingCall {
  tool: string;
  kind?: string | undefined;
  input: string;
  /** The gate's rule, when the gate made this call an approval. */
  gate?: string | undefined;
}

/** What the gate's views need of the allow rules (src/approvals), without importing them. */
export interface AllowRulesPort<R> {
  /** The rules that apply in a repository (its own and everyone's); every rule when unset. */
  list(root?: string): Promise<R[]>;
  /** The rule that would answer `call` in the repository `root`, checked out at `worktree`. */
  ruleFor(root: string, call: PendingCall, worktree: string): Promise<{ id: number } | undefined>;
}

export interface PolicyServiceOptions {
  /** The user's home, where `~` in commands points (default the process's). */
  home?: string;
  /** Baton's state folder: one of the user's places the gate guards. */
  stateHome?: string;
}

export class PolicyService<R = unknown> {
  private readonly home: string;

  constructor(
    private readonly allowRules: AllowRulesPort<R>,
    private readonly options: PolicyServiceOptions = {},
  ) {
    this.home = options.home ?? homedir();
  }

  async view(
    cwd: string,
  ): Promise<{ project: string | null; rules: ReturnType<typeof describeRules>; allow: R[] }> {
    const root = await repositoryOf(cwd);
    const section = root === undefined ? {} : (loadRepoConfig(root).policy ?? {});
    return { project: root ?? null, rules: describeRules(section), allow: await this.allowRules.list(root) };
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
    const rule = await this.allowRules.ruleFor(repo.root, pending, worktree);
    return { verdict, allowRule: rule?.id ?? null, worktree };
  }
}

async function repositoryOf(cwd: string): Promise<string | undefined> {
  try {
    return (await findRepository(cwd)).root;
  } catch {
    return undefined;
  }
}
