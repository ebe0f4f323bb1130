/**
 * Git state every worktree of a repository shares: one stash list, one set of branches, the
 * worktrees themselves, and the objects and reflogs that make a lost commit recoverable. A
 * session works in its own worktree, but a command on this state reaches the user's checkout and
 * the other sessions (decision 157, "The gate knows the repository").
 */
import { placeOf } from './paths.js';
import { joinPath, type Word } from './shell.js';
import { gitCall, positional, stripRef } from './rules-git.js';
import { inOtherCheckout } from './rules-git-elsewhere.js';
import type { CommandRule, Finding, RuleContext } from './types.js';

export const SHARED_STATE = 'git-shared-state';

/** An expiry that keeps nothing: `now`, `all`, `0`, or within the hour. */
const IMMEDIATE = /^(now|all|0|\d+\.?(seconds?|minutes?|hours?)(\.ago)?)$/i;

const sharedState: CommandRule = {
  id: SHARED_STATE,
  title:
    'git state every worktree shares: the stash list, other branches and worktrees, pruning what a lost commit is recovered from',
  action: 'block',
  suggest:
    "work on the session's own branch and worktree; leave the stash list, other branches and gc to the user",
  check(command, context) {
    const git = gitCall(command, context);
    if (git === undefined) return undefined;
    const { sub, args } = git;
    const first = args[0]?.text;
    const found = (why: string, uncertain = false): Finding => ({
      rule: SHARED_STATE,
      why,
      ...(uncertain ? { uncertain } : {}),
    });
    if (sub === 'stash') {
      if (first === 'clear')
        return found(
          'git stash clear empties the one stash list every worktree shares (the user’s stashes too)',
        );
      // Whose entry `stash@{n}` is cannot be told from the command: the user decides.
      if (first === 'drop')
        return found(
          "git stash drop removes an entry of the stash list every worktree shares; it may be the user's",
          true,
        );
    }
    const provenance = batonRefWrite(sub, args, git.config, command.values?.['GIT_NOTES_REF']);
    if (provenance !== undefined) return provenance;
    if (sub === 'branch') return branchChange(args, context);
    if (sub === 'worktree' && (first === 'remove' || first === 'move')) {
      const force = args.some((a) => a.text === '--force' || /^-[a-zA-Z]*f/.test(a.text));
      const target = positional(args.slice(1))[0];
      if (target === undefined) return undefined;
      if (target.dynamic || git.dir === undefined)
        return found(`git worktree ${first} of a worktree only known at run time`, true);
      const path = joinPath(git.dir, target.text);
      const where = placeOf(path, false, context);
      if (where === 'user' || where === 'worktree' || where === 'inside')
        return found(`git worktree ${first} ${path}: a checkout of the user's or of a session`);
      if (force)
        return found(`git worktree ${first} --force discards whatever ${path} holds uncommitted`, true);
      return undefined;
    }
    if (sub === 'gc' || sub === 'prune' || sub === 'reflog' || sub === 'maintenance') {
      // `git -c gc.pruneExpire=now gc` is `git gc --prune=now` by another name.
      const expiry = git.config.find(
        (c) =>
          /^gc\.(.+\.)?(pruneexpire|reflogexpire|reflogexpireunreachable|worktreepruneexpire)$/i.test(
            c.key,
          ) && IMMEDIATE.test(c.value ?? ''),
      );
      if (expiry !== undefined)
        return found(
          `git -c ${expiry.key}=${expiry.value ?? ''} ${sub} deletes at once the commits and reflogs a mistake is recovered from`,
        );
    }
    if (sub === 'gc') {
      const prune = args.find((a) => a.text === '--prune' || a.text.startsWith('--prune='));
      // `--prune` alone keeps gc's default (two weeks).
      if (prune !== undefined && IMMEDIATE.test(prune.text.slice('--prune='.length)))
        return found(
          `git gc ${prune.text} deletes every unreachable commit at once, the ones a reset or a dropped stash left`,
        );
    }
    if (sub === 'prune' && !args.some((a) => a.text === '-n' || a.text === '--dry-run'))
      return found(
        'git prune deletes the unreachable commits a reset or a dropped stash left, for every worktree',
      );
    if (sub === 'reflog' && first === 'expire') {
      const expire = args.find((a) => /^--expire(-unreachable)?=/.test(a.text));
      if (expire !== undefined && IMMEDIATE.test(expire.text.split('=')[1] ?? ''))
        return found(
          `git reflog expire ${expire.text} forgets where every branch has been, the way back from a mistake`,
        );
    }
    if (sub === 'reflog' && first === 'delete')
      return found('git reflog delete forgets where a branch has been', true);
    if (sub === 'update-ref' && args.some((a) => a.text === '--stdin'))
      return found('git update-ref --stdin reads which refs it deletes or moves from its input', true);
    if (sub === 'update-ref' && !args.some((a) => a.text === '-d')) {
      // `git update-ref refs/heads/X <sha>` moves a branch as `git branch -f` does.
      const ref = positional(args)[0];
      if (ref?.dynamic) return found('git update-ref moves a ref only known at run time', true);
      const text = ref?.text ?? '';
      if (text === 'refs/stash' || text.startsWith('refs/baton/'))
        return found(
          `git update-ref ${text} rewrites ${text === 'refs/stash' ? 'the shared stash' : "Baton's checkpoints"}`,
        );
      if (text.startsWith('refs/heads/')) {
        const branch = stripRef(text);
        if (branch === context.baseBranch)
          return found(`git update-ref moves the base branch ${branch} to another commit`, true);
        return branchVerdict(branch, 'force-moves', context, true);
      }
    }
    if (sub === 'update-ref' && args.some((a) => a.text === '-d')) {
      const ref = positional(args)[0]?.text ?? '';
      if (ref === 'refs/stash' || ref.startsWith('refs/baton/'))
        return found(
          `git update-ref -d ${ref} deletes ${ref === 'refs/stash' ? 'the shared stash' : "Baton's checkpoints"}`,
        );
      const branch = ref.startsWith('refs/heads/') ? stripRef(ref) : undefined;
      if (branch !== undefined) return branchVerdict(branch, 'deletes', context, true);
    }
    if ((sub === 'restore' || sub === 'checkout') && git.elsewhere && discardsFiles(sub, args))
      return found(
        `git ${sub} discards uncommitted work in ${git.dir ?? 'another checkout'}, outside the session's worktree`,
      );
    return inOtherCheckout(git, context, SHARED_STATE);
  },
};

/** Baton's own refs: its checkpoints and snapshots under `refs/baton/`, its provenance notes. */
function isBatonRef(ref: string): boolean {
  const full = ref.replace(/^\+/, '');
  return (
    full.startsWith('refs/baton/') || full === 'refs/notes/baton' || full.startsWith('refs/notes/baton/')
  );
}

/** `git notes` writes that change what a note says (not `show`, `list`, `get-ref`). */
const NOTES_WRITES = new Set(['add', 'append', 'copy', 'edit', 'merge', 'remove', 'prune']);

/**
 * Writes to Baton's own refs (decision 333): moving `refs/notes/baton` or writing a note there
 * forges the provenance Baton records for a session's commits (`git notes --ref baton add`,
 * `GIT_NOTES_REF`, `-c core.notesRef`), and a fetch into `refs/baton/` or the notes replaces
 * Baton's checkpoints; both are blocked, as moving `refs/baton/…` is. Pushing them to a remote
 * asks: it is the shared copy others read, but a person may mean it.
 */
function batonRefWrite(
  sub: string,
  args: Word[],
  config: { key: string; value: string | undefined }[],
  notesVariable: Word | undefined,
): Finding | undefined {
  const block = (why: string): Finding => ({ rule: SHARED_STATE, why });
  if (sub === 'update-ref' && !args.some((a) => a.text === '--stdin')) {
    const ref = positional(args)[0]?.text ?? '';
    if (ref === 'refs/notes/baton' || ref.startsWith('refs/notes/baton/'))
      return block(`git update-ref ${ref} rewrites Baton's provenance notes`);
  }
  if (sub === 'notes') {
    let ref =
      notesVariable?.text ??
      config.findLast((c) => c.key.toLowerCase() === 'core.notesref')?.value ??
      'refs/notes/commits';
    let action: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const text = args[i]?.text ?? '';
      if (text === '--ref') ref = args[++i]?.text ?? ref;
      else if (text.startsWith('--ref=')) ref = text.slice('--ref='.length);
      else if (!text.startsWith('-') && action === undefined) action = text;
    }
    const full = ref.startsWith('refs/') ? ref : `refs/notes/${ref}`;
    if (isBatonRef(full) && NOTES_WRITES.has(action ?? 'add'))
      return block(`git notes ${action ?? 'add'} in ${full} forges Baton's provenance notes`);
  }
  if (sub === 'fetch' || sub === 'push') {
    for (const spec of positional(args).slice(1)) {
      const text = spec.text.replace(/^\+/, '');
      const colon = text.indexOf(':');
      const destination = colon < 0 ? text : text.slice(colon + 1);
      // `refs/notes/*:refs/notes/*`, `refs/*:refs/*`: Baton's refs among others.
      if (destination.endsWith('*') && 'refs/notes/baton'.startsWith(destination.slice(0, -1)))
        return {
          rule: SHARED_STATE,
          why: `git ${sub} ${destination} may change Baton's own refs among others`,
          uncertain: true,
        };
      if (!isBatonRef(destination)) continue;
      if (sub === 'fetch') return block(`git fetch into ${destination} replaces Baton's own refs`);
      return {
        rule: SHARED_STATE,
        why: `git push ${destination} changes the copy of Baton's records others read`,
        uncertain: true,
      };
    }
  }
  return undefined;
}

/** `git branch -D x`, `-f x`, `-M a b`: the branch namespace is the repository's, not the worktree's. */
function branchChange(args: Word[], context: RuleContext): Finding | undefined {
  const del = args.some((a) => /^-[a-zA-Z]*[dD]/.test(a.text) || a.text === '--delete');
  const forced = args.some((a) => a.text === '--force' || /^-[a-zA-Z]*[fD]/.test(a.text));
  // `-m` too: renaming another's branch takes it from under them, as `-M` does.
  const renames = args.some((a) => /^-[a-zA-Z]*[MCm]/.test(a.text) || a.text === '--move');
  const moves = !del && (forced || renames);
  if (!del && !moves) return undefined;
  const how = del ? (forced ? 'deletes' : 'soft') : 'force-moves';
  const names = positional(args);
  // -d/-D name the branches they delete; -f and -M/-C name the changed branch first (-M alone renames the current one).
  const changed = del ? names : renames && names.length < 2 ? [] : names.slice(0, 1);
  for (const name of changed) {
    if (name.dynamic)
      return { rule: SHARED_STATE, why: 'changes a branch only known at run time', uncertain: true };
    const found = branchVerdict(stripRef(name.text), how, context, how !== 'soft');
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A change to a branch other than the session's: another session's (`baton/…`) is blocked; any
 * other is asked about (the gate cannot tell the user's branches from one the agent made), and
 * `git branch -d`, which refuses unmerged work, is let through. The base is git-base-branch's.
 */
function branchVerdict(
  branch: string,
  how: 'deletes' | 'soft' | 'force-moves',
  context: RuleContext,
  loses: boolean,
): Finding | undefined {
  if (branch === context.branch || branch === context.baseBranch) return undefined;
  const verb = how === 'soft' ? 'deletes' : how;
  if (branch.startsWith('baton/'))
    return { rule: SHARED_STATE, why: `${verb} ${branch}, another session's branch` };
  if (!loses) return undefined;
  return {
    rule: SHARED_STATE,
    why: `${verb} the branch ${branch}, which is not the session's own (it may be the user's)`,
    uncertain: true,
  };
}

/** `git restore <paths>` (not `--staged` alone), `git checkout [<commit>] -- <paths>` or `git checkout .`. */
function discardsFiles(sub: string, args: Word[]): boolean {
  if (sub === 'restore')
    return !(
      args.some((a) => a.text === '--staged' || a.text === '-S') &&
      !args.some((a) => a.text === '--worktree' || a.text === '-W')
    );
  return args.some((a) => a.text === '--') || positional(args).some((a) => a.text === '.');
}

export const SHARED_GIT_RULES: CommandRule[] = [sharedState];
