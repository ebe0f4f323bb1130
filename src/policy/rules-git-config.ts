/**
 * Git settings that run a program: an alias with `!`, hooks, the fsmonitor, pagers and editors,
 * filters, textconv, credential helpers, included config files. Set by the agent, they make every
 * later git command run its code, the user's and Baton's own (outside the sandbox) too: asked
 * about in the repository, blocked in the user's global or system config. A subcommand git does
 * not ship may be such an alias, so it is asked about (decision 164, "Git settings that run code").
 */
import { gitCall } from './rules-git.js';
import { UNKNOWN, type Word } from './shell.js';
import type { CommandRule, Finding } from './types.js';

export const GIT_RUNS_CODE = 'git-runs-code';

/** Keys (lower-cased, `*` for a user's name) whose value git runs, or that pull in other config. */
const RUNS_CODE = [
  /^core\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass|gitproxy|attributesfile|worktree)$/,
  /^(sequence\.editor|diff\.external|diff\.tool|merge\.tool|gpg\.program|credential\.helper|include\.path)$/,
  /^pager\..+$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^diff\..+\.(textconv|command)$/,
  /^merge\..+\.driver$/,
  /^(difftool|mergetool)\..+\.(cmd|path)$/,
  /^credential\..+\.helper$/,
  /^includeif\..+\.path$/,
  /^gpg\..+\.program$/,
  /^remote\..+\.(uploadpack|receivepack|vcs)$/,
  /^uploadpack\.packobjectshook$/,
  /^protocol\.(ext|allow)/,
  /^ssh\.variant$/,
  // Each names a program git runs (decision 395, "Git settings written any way git takes them are judged").
  /^core\.alternaterefscommand$/,
  /^interactive\.difffilter$/,
  /^gpg\.ssh\.defaultkeycommand$/,
  /^trailer\..+\.(command|cmd)$/,
  /^sendemail\.(smtpserver|tocmd|cccmd|headercmd)$/,
  /^(browser|man)\..+\.(cmd|path)$/,
  /^hook\..+\.command$/,
];

/**
 * Sections whose keys name programs: a section renamed or copied into one of these
 * (`git config --rename-section x core` after `git config x.fsmonitor ./x`) sets what a key
 * set there directly would.
 */
const RUNS_CODE_SECTION =
  /^(core|alias|include|includeif\..+|pager|filter\..+|diff(\..+)?|merge\..+|difftool\..+|mergetool\..+|credential(\..+)?|gpg(\..+)?|remote\..+|uploadpack|protocol(\..+)?|ssh|sequence|interactive|trailer\..+|sendemail(\..+)?|browser\..+|man\..+|hook\..+|submodule\..+)$/;

/** Pagers and editors that are what a user would have anyway (`git -c core.pager=cat log`). */
const PLAIN_PROGRAM = /^(|cat|less( -[A-Za-z]+)*|more|true|false|:|vim?|nvim|nano|emacs)$/;

/** An alias runs a shell command when its value starts with `!`. */
function runsCode(key: string, value: string | undefined): boolean {
  const lower = key.toLowerCase();
  if (
    /^(core\.(pager|editor)|pager\..+|sequence\.editor)$/.test(lower) &&
    value !== undefined &&
    PLAIN_PROGRAM.test(value.trim())
  )
    return false;
  // A `!` alias runs a shell command; so does a submodule's `update` set to `!…` (at `git submodule update`).
  if (lower.startsWith('alias.') || /^submodule\..+\.update$/.test(lower))
    return value === undefined || value.trimStart().startsWith('!') || value.includes(UNKNOWN);
  return RUNS_CODE.some((pattern) => pattern.test(lower));
}

/** The subcommands git ships (and git-lfs); anything else may be an alias the agent set. */
const KNOWN = new Set(
  (
    'add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore ' +
    'check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column ' +
    'commit commit-graph commit-tree config count-objects credential describe diagnose diff diff-files ' +
    'diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg ' +
    'for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help ' +
    'index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit ' +
    'maintenance merge merge-base merge-file merge-index merge-tree mergetool mktag mktree ' +
    'multi-pack-index mv name-rev notes pack-objects pack-refs patch-id prune prune-packed pull push ' +
    'range-diff read-tree rebase reflog remote repack replace replay request-pull rerere reset restore ' +
    'rev-list rev-parse revert rm send-email shortlog show show-branch show-index show-ref ' +
    'sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag unpack-file ' +
    'unpack-objects update-index update-ref update-server-info var verify-commit verify-pack ' +
    'verify-tag version whatchanged worktree write-tree lfs svn'
  ).split(' '),
);

/** Whether git ships `name` as a subcommand (anything else may be an alias). */
export function isGitSubcommand(name: string): boolean {
  return KNOWN.has(name);
}

const gitRunsCode: CommandRule = {
  id: GIT_RUNS_CODE,
  title: 'git settings that run a program (a ! alias, hooks, fsmonitor, pager, filters, credential helper)',
  action: 'block',
  suggest: 'run the command itself rather than making git run it',
  check(command, context) {
    const git = gitCall(command, context);
    if (git === undefined) return undefined;
    const ask = (why: string): Finding => ({ rule: GIT_RUNS_CODE, why, uncertain: true });
    const given = git.config.find((c) => c.dynamic || runsCode(c.key, c.value));
    if (given !== undefined)
      return ask(
        given.via === undefined
          ? `git -c ${given.key} makes git run a program the command names`
          : `${given.via} gives git settings that may make it run a program (${given.key})`,
      );
    const { sub, args } = git;
    if (sub === 'config') return configWrite(args, ask);
    if (sub.includes(UNKNOWN)) return ask('runs a git subcommand only known at run time');
    if (!KNOWN.has(sub))
      return ask(`git ${sub} is not a git subcommand: it may be an alias that runs a program`);
    return undefined;
  },
};

/** Options of `git config` that take a value, written apart (`--file PATH`, `--type bool`). */
const CONFIG_VALUE_OPTIONS = new Set(['-f', '--file', '--blob', '--type', '--comment', '--default']);

/**
 * `git config [--global|--system|--file F] KEY VALUE` (or `git config set KEY VALUE`) of a key
 * that runs code, or a section renamed into one whose keys do (`--rename-section x core`).
 */
function configWrite(args: Word[], ask: (why: string) => Finding): Finding | undefined {
  const texts = args.map((a) => a.text);
  const reads = texts.some((a) =>
    /^--(get|get-all|get-regexp|get-urlmatch|list|unset|unset-all|remove-section|edit)$|^-[le]$/.test(a),
  );
  // The words that are not options, nor the values of options (`--file PATH` is not the key).
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const text = texts[i] ?? '';
    if (CONFIG_VALUE_OPTIONS.has(text)) i++;
    else if (!text.startsWith('-') || (args[i]?.dynamic ?? false)) words.push(text);
  }
  const renames = texts.includes('--rename-section') || words[0] === 'rename-section';
  if (renames) {
    const [from, to] = words[0] === 'rename-section' ? words.slice(1) : words;
    if (to === undefined) return undefined;
    if (!to.includes(UNKNOWN) && !RUNS_CODE_SECTION.test(to.toLowerCase())) return undefined;
    return scoped(
      texts,
      `git config --rename-section ${from ?? ''} ${to} moves settings into a section whose keys run a program`,
      ask,
    );
  }
  const sets =
    words[0] === 'set'
      ? words.slice(1)
      : words[0] === 'get' || words[0] === 'list' || words[0] === 'unset' || words[0] === 'remove-section'
        ? []
        : words;
  if (reads || sets.length < 2) return undefined;
  const key = sets[0] ?? '';
  const value = sets[1];
  if (!key.includes(UNKNOWN) && !runsCode(key, value)) return undefined;
  return scoped(
    texts,
    `git config ${key} makes later git commands (the user's and Baton's) run a program the agent chose`,
    ask,
  );
}

/** Blocked in the user's own config (every repository), asked about in the repository's or a named file. */
function scoped(texts: string[], why: string, ask: (why: string) => Finding): Finding {
  const scope = texts.find((a) => a === '--global' || a === '--system');
  if (scope !== undefined)
    return {
      rule: GIT_RUNS_CODE,
      why: `${why.replace(/^git config/, `git config ${scope}`)}, in every repository of the user's`,
    };
  return ask(why);
}

export const GIT_CONFIG_RULES: CommandRule[] = [gitRunsCode];
