/**
 * Git run in another checkout (`git -C <main checkout> …`, `--git-dir`/`--work-tree`, `GIT_DIR=…`):
 * the user's checkout and other sessions' worktrees hold work that is not the session's. Decision
 * 164 blocked `reset --hard`, `clean -f` and `checkout -- .` there; the fifth hostile review
 * (decision 397, "Git in another checkout: discards block, other changes ask") found the rest of
 * git's ways to throw that work away, and the commands that rewrite it in place.
 */
import { placeOf } from './paths.js';
import { positional, type GitCall } from './rules-git.js';
import type { Finding, RuleContext } from './types.js';

/** Subcommands that only read a checkout, or write nothing of it (its files, index, HEAD, branch). */
const READS = new Set([
  'status',
  'log',
  'show',
  'diff',
  'blame',
  'annotate',
  'grep',
  'ls-files',
  'ls-tree',
  'ls-remote',
  'rev-parse',
  'rev-list',
  'cat-file',
  'for-each-ref',
  'show-ref',
  'describe',
  'name-rev',
  'merge-base',
  'shortlog',
  'whatchanged',
  'reflog',
  'config',
  'remote',
  'fetch',
  'branch',
  'tag',
  'worktree',
  'archive',
  'bundle',
  'format-patch',
  'check-ignore',
  'check-attr',
  'var',
  'version',
  'help',
  'count-objects',
  'fsck',
  'verify-commit',
  'verify-tag',
  'diff-tree',
  'diff-index',
  'diff-files',
  'range-diff',
  'cherry',
  'show-branch',
  'notes',
  'push',
  'clone',
  'init',
  'gc',
  'prune',
  'update-ref',
  'maintenance',
  'repack',
  'pack-refs',
  'lfs',
]);

/**
 * What git in another checkout does to the work there: a discard blocks (as `reset --hard` there
 * does), any other change of its files, index or branch asks. Rules elsewhere judge the shared
 * state (branches, refs, worktrees, gc) and settings, which READS leaves to them.
 */
export function inOtherCheckout(git: GitCall, context: RuleContext, rule: string): Finding | undefined {
  if (!git.elsewhere) return undefined;
  const { sub, args } = git;
  const texts = args.map((a) => a.text);
  // A checkout of the user's or another session's, or one only known at run time (`GIT_DIR=…`);
  // a folder the agent made (a scratch clone in the temporary folder) is its own to change.
  // Pointed away by `--git-dir`/`--work-tree` while in the worktree: where it works is unknown.
  const at = git.dir === undefined ? 'unknown' : placeOf(git.dir, false, context, true);
  const place = at === 'inside' || at === 'worktree' ? 'unknown' : at;
  const others =
    place === 'user' ||
    place === 'unknown' ||
    place === 'repository' ||
    (git.dir !== undefined && typeof context.disk?.checkoutAt(git.dir, '/') === 'object');
  if (!others) return undefined;
  const where = git.dir ?? 'another checkout';
  const discards = (how: string): Finding => ({
    rule,
    why: `${how} discards uncommitted work in ${where}, outside the session's worktree`,
  });
  const force = texts.some((a) => a === '--force' || /^-[a-zA-Z]*f[a-zA-Z]*$/.test(a));
  if ((sub === 'checkout' || sub === 'switch') && (force || texts.includes('--discard-changes')))
    return discards(`git ${sub} --force`);
  if (sub === 'read-tree' && texts.includes('-u') && (texts.includes('--reset') || texts.includes('-m')))
    return discards('git read-tree -u');
  if (sub === 'checkout-index' && force) return discards('git checkout-index --force');
  if (sub === 'submodule' && texts[0] === 'deinit' && force) return discards('git submodule deinit --force');
  if (sub === 'stash' && (texts[0] === undefined || /^(push|save|-.*)$/.test(texts[0])))
    return { ...discards('git stash'), uncertain: true };
  if (READS.has(sub) || (sub === 'stash' && /^(list|show)$/.test(texts[0] ?? ''))) return undefined;
  if (sub === 'sparse-checkout' && texts[0] === 'list') return undefined;
  // `git symbolic-ref HEAD` reads which branch is out; with a ref it moves the checkout's HEAD.
  if (sub === 'symbolic-ref' && positional(args).length < 2 && !texts.some((a) => /^(-d|--delete)$/.test(a)))
    return undefined;
  // Other checkouts on the machine (not the user's repository's) are judged only for discards.
  if (place !== 'user' && place !== 'unknown' && place !== 'repository') return undefined;
  const what = positional(args)[0]?.text;
  return {
    rule,
    why: `git ${sub}${what === undefined ? '' : ` ${what}`} changes the files, index or branch of ${where}, which is not the session's worktree`,
    uncertain: true,
  };
}
