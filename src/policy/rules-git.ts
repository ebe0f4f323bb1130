/** Rules about git: force pushes, and rewriting or deleting the base branch. */
import { placeOf } from './paths.js';
import { joinPath, type Word } from './shell.js';
import type { CommandRule, RuleContext } from './types.js';
import type { Command } from './unwrap.js';

export const FORCE_PUSH = 'git-force-push';
export const BASE_BRANCH = 'git-base-branch';

/** Options of `git` itself that take a value. */
const GIT_VALUE_OPTIONS = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
  '--config-env',
]);

export interface GitCall {
  sub: string;
  args: Word[];
  /** The checkout it works in, when known. */
  dir: string | undefined;
  /** The checkout is not the session's worktree (`git -C ../main …`, `cd ~/repo && git …`). */
  elsewhere: boolean;
  /** Settings given for this run: `-c key=value`, `--config-env=key=VAR` (keys as written). */
  config: { key: string; value: string | undefined; dynamic: boolean; via?: string }[];
}

/**
 * Settings given through the environment, which git reads as it reads `-c` (decision 395):
 * `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`, `GIT_CONFIG_PARAMETERS`
 * (git's own quoting, not read: its settings are unknown), and a config file named by
 * `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM` or `GIT_CONFIG` (whatever it holds applies).
 */
function environmentConfig(command: Command): GitCall['config'] {
  const values = command.values ?? {};
  const out: GitCall['config'] = [];
  for (const name of command.env ?? []) {
    const keyed = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    if (keyed !== null) {
      const key = values[name];
      const value = values[`GIT_CONFIG_VALUE_${keyed[1] ?? ''}`];
      out.push({
        key: key?.text ?? name,
        value: value?.text,
        dynamic: key === undefined || key.dynamic || value?.dynamic === true,
        via: name,
      });
    }
    const file = values[name];
    if (name === 'GIT_CONFIG_PARAMETERS' || (CONFIG_FILE_VARIABLES.has(name) && file?.text !== '/dev/null'))
      out.push({ key: name, value: undefined, dynamic: true, via: name });
  }
  return out;
}

const CONFIG_FILE_VARIABLES = new Set(['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG']);

/** Variables that point git at another repository or index, as `--git-dir`/`--work-tree` do. */
const GIT_PLACE_VARIABLES = new Set(['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_INDEX_FILE']);

export function gitCall(command: Command, context: RuleContext): GitCall | undefined {
  if (command.name !== 'git') return undefined;
  let dir: string | undefined = command.cwd;
  let elsewhere = (command.env ?? []).some((name) => GIT_PLACE_VARIABLES.has(name));
  // Where `GIT_DIR=…` points is not followed: the checkout is unknown, and not the session's.
  if (elsewhere) dir = undefined;
  const config: GitCall['config'] = environmentConfig(command);
  let i = 0;
  const args = command.args;
  for (; i < args.length; i++) {
    const word = args[i] as Word;
    const text = word.text;
    if (!text.startsWith('-')) break;
    if (text === '-C') {
      const next = args[i + 1];
      dir = next === undefined || next.dynamic || dir === undefined ? undefined : joinPath(dir, next.text);
    }
    if (text.startsWith('--git-dir') || text.startsWith('--work-tree')) elsewhere = true;
    const setting =
      text === '-c' || text === '--config-env'
        ? args[i + 1]
        : text.startsWith('--config-env=')
          ? { ...word, text: text.slice(13) }
          : undefined;
    if (setting !== undefined) {
      const eq = setting.text.indexOf('=');
      config.push({
        key: eq < 0 ? setting.text : setting.text.slice(0, eq),
        value: eq < 0 || text.startsWith('--config-env') ? undefined : setting.text.slice(eq + 1),
        dynamic: setting.dynamic,
      });
    }
    if (GIT_VALUE_OPTIONS.has(text)) i++;
  }
  const sub = args[i];
  if (sub === undefined) return undefined;
  if (
    dir !== undefined &&
    placeOf(dir, false, context, true) !== 'inside' &&
    placeOf(dir, false, context, true) !== 'worktree'
  )
    elsewhere = true;
  return { sub: sub.text, args: args.slice(i + 1), dir, elsewhere, config };
}

const forcePush: CommandRule = {
  id: FORCE_PUSH,
  title: 'git push --force (or a +refspec, or --mirror)',
  action: 'block',
  suggest: 'git push --force-with-lease origin <the session branch>',
  check(command, context) {
    const git = gitCall(command, context);
    if (git?.sub !== 'push') return undefined;
    const { args } = git;
    const forced = args.some(
      (a) => a.text === '--force' || /^-[a-zA-Z]*f[a-zA-Z]*$/.test(a.text) || a.text === '--mirror',
    );
    const plus = positional(args)
      .slice(1)
      .find((a) => a.text.startsWith('+'));
    if (forced)
      return {
        rule: FORCE_PUSH,
        why: 'force-pushing overwrites the remote branch and the work others pushed to it',
      };
    if (plus !== undefined) return { rule: FORCE_PUSH, why: `the refspec ${plus.text} force-pushes` };
    const lease = args.some(
      (a) => a.text.startsWith('--force-with-lease') || a.text.startsWith('--force-if-includes'),
    );
    if (!lease) return undefined;
    // With a lease the push still rewrites the branch: fine on the session's own, never on one
    // others build on (the base, the user's branches, other sessions'). No refspec: the current branch.
    const current = context.switchedTo ?? context.branch;
    const refspecs = positional(args).slice(1);
    if (refspecs.some((a) => a.dynamic))
      return {
        rule: FORCE_PUSH,
        why: 'force-pushes (with lease) onto a branch only known at run time',
        uncertain: true,
      };
    const targets = pushTargets(args).map((t) => (t === 'HEAD' || t === '@' ? (current ?? t) : t));
    const written = refspecs.length > 0 ? targets : current === undefined ? [] : [current];
    const own = context.branch;
    const shared = written.find(
      (t) => t === context.baseBranch || (own !== undefined && t !== own && t !== 'HEAD'),
    );
    // The lease refuses when the remote moved since the last fetch, so this asks rather than blocks.
    if (shared !== undefined)
      return {
        rule: FORCE_PUSH,
        why: `force-pushes (with lease) onto ${shared === context.baseBranch ? 'the base branch' : 'the branch'} ${shared}, which is not the session's own`,
        uncertain: true,
      };
    return undefined;
  },
};

const baseBranch: CommandRule = {
  id: BASE_BRANCH,
  title: 'git reset --hard or branch deletion on the base branch, or discarding work in another checkout',
  action: 'block',
  suggest: "reset the session's own branch in its worktree, or git stash to keep the changes",
  check(command, context) {
    const git = gitCall(command, context);
    if (git === undefined) return undefined;
    const base = context.baseBranch;
    const { sub, args } = git;
    const named = (branch: string | undefined): boolean =>
      base !== undefined && branch !== undefined && stripRef(branch) === base;
    if (sub === 'reset' && args.some((a) => a.text === '--hard')) {
      if (git.elsewhere)
        return {
          rule: BASE_BRANCH,
          why: `git reset --hard in ${git.dir ?? 'another checkout'}, outside the session's worktree`,
        };
      const on = context.switchedTo ?? context.branch;
      if (named(on)) return { rule: BASE_BRANCH, why: `git reset --hard on the base branch ${base ?? ''}` };
    }
    if (
      sub === 'clean' &&
      git.elsewhere &&
      args.some((a) => /^-[a-zA-Z]*f/.test(a.text) || a.text === '--force')
    ) {
      return {
        rule: BASE_BRANCH,
        why: `git clean deletes files in ${git.dir ?? 'another checkout'}, outside the session's worktree`,
      };
    }
    if (sub === 'branch') {
      const deletes = args.some((a) => /^-[a-zA-Z]*[dD]/.test(a.text) || a.text === '--delete');
      const forces = args.some(
        (a) => /^-[a-zA-Z]*[fMCm]/.test(a.text) || a.text === '--force' || a.text === '--move',
      );
      const target = positional(args).find((a) => named(a.text));
      if (target !== undefined && (deletes || forces))
        return {
          rule: BASE_BRANCH,
          why: `${deletes ? 'deletes' : 'force-moves'} the base branch ${base ?? ''}`,
        };
    }
    if (
      (sub === 'checkout' || sub === 'switch') &&
      args.some((a) => a.text === '-B' || a.text === '-C' || a.text === '--force-create')
    ) {
      const index = args.findIndex((a) => a.text === '-B' || a.text === '-C' || a.text === '--force-create');
      if (named(args[index + 1]?.text))
        return { rule: BASE_BRANCH, why: `resets the base branch ${base ?? ''} to another commit` };
    }
    if (sub === 'push') {
      const deletes = args.some((a) => a.text === '-d' || a.text === '--delete');
      const targets = positional(args).slice(1);
      const hit = targets.find(
        (a) => (deletes && named(a.text)) || (a.text.startsWith(':') && named(a.text.slice(1))),
      );
      if (hit !== undefined)
        return { rule: BASE_BRANCH, why: `deletes the base branch ${base ?? ''} on the remote` };
    }
    if (
      sub === 'update-ref' &&
      args.some((a) => a.text === '-d') &&
      positional(args).some((a) => named(a.text))
    ) {
      return { rule: BASE_BRANCH, why: `deletes the base branch ${base ?? ''}` };
    }
    return undefined;
  },
};

/** The branch a `git checkout X` / `git switch X` moves to (not a new branch, not files). */
export function switchTarget(command: Command, context: RuleContext): string | undefined {
  const git = gitCall(command, context);
  if (git === undefined || (git.sub !== 'checkout' && git.sub !== 'switch')) return undefined;
  if (git.args.some((a) => a.text === '--' || a.text === '-b' || a.text === '-c')) return undefined;
  const target = positional(git.args)[0];
  return target === undefined || target.dynamic ? undefined : target.text;
}

export function positional(args: Word[]): Word[] {
  return args.filter((a) => !a.text.startsWith('-') || a.dynamic);
}

/** The remote branches a push writes. */
function pushTargets(args: Word[]): string[] {
  return positional(args)
    .slice(1)
    .map((a) => stripRef(a.text.replace(/^\+/, '').split(':').pop() ?? ''));
}

export function stripRef(ref: string): string {
  return ref.replace(/^\+/, '').replace(/^refs\/heads\//, '');
}

export const GIT_RULES: CommandRule[] = [forcePush, baseBranch];
