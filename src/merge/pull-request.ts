/** `baton pr`: the session's work committed on its branch, pushed, and a pull request opened (or its page named). */
import { existsSync } from 'node:fs';
import type { PrView } from '../api/merge.js';
import type { WorkspaceBus } from '../bus/index.js';
import { PrOpened, PrPushed } from '../events/workspace.js';
import { loadRepoConfig } from '../projects/index.js';
import { SessionStateError } from '../shared/errors.js';
import { gitOut } from '../worktrees/index.js';
import { branchTip, commitSessionWork, isAncestor } from './git.js';
import { compareUrl, describePr, openWithGh, pushBranch, remoteUrl } from './pr.js';
import { baseOf, requireMergeable, type MergeSessions } from './sessions.js';

export async function openPullRequest(input: {
  ref: string;
  cwd?: string | undefined;
  sessions: MergeSessions;
  bus: WorkspaceBus;
  env: NodeJS.ProcessEnv;
}): Promise<PrView> {
  const session = input.sessions.resolve(input.ref, input.cwd);
  requireMergeable(session, input.sessions);
  const root = session.project_root;
  const remote = loadRepoConfig(root).pr?.remote ?? 'origin';
  const base = baseOf([session]);
  // Said before the session's work is touched.
  await remoteUrl(root, remote);
  // Held from the commit to the push (decision 402): keep-fresh's rebase, a checkpoint's restore
  // or a merge of the session waits, one already running ends first, so the branch committed is
  // the branch pushed and no worktree is read mid-rebase.
  const { committed, tip, baseTip, head, pushed } = await input.sessions.whileHeld(session.id, async () => {
    // Again under the hold: a reply may have started a turn meanwhile, or a merge landed it.
    requireMergeable(session, input.sessions);
    const committed = existsSync(session.worktree)
      ? await commitSessionWork({
          worktree: session.worktree,
          branch: session.branch,
          name: session.name,
          prompt: session.prompt,
        })
      : undefined;
    const tip = committed?.tip ?? (await branchTip(root, session.branch));
    if (tip === undefined)
      throw new SessionStateError(
        `The branch ${session.branch} of ${session.name} is gone; there is nothing to push.`,
      );
    const baseTip = await branchTip(root, base);
    if (baseTip !== undefined && (await isAncestor(root, tip, baseTip))) {
      throw new SessionStateError(
        `${session.name} has nothing to propose: its branch ${session.branch} has no work beyond ${base}.`,
        { reason: 'nothing_to_merge' },
      );
    }
    // Another machine's session: its work was brought here under a branch of its own; the request's head is the session's branch.
    const head = input.sessions.ownBranch(session.id) ?? session.branch;
    const pushed = await pushBranch(root, remote, session.branch, undefined, head);
    return { committed, tip, baseTip, head, pushed };
  });
  const who = { sessionId: session.id, name: session.name, project: session.project_name };
  input.bus.publish(PrPushed, { ...who, remote, branch: head, commit: pushed.commit });

  const range = baseTip === undefined ? [tip] : [`${baseTip}..${tip}`];
  const commits = (await gitOut(root, ['rev-list', ...range])).split('\n').filter(Boolean);
  const files =
    baseTip === undefined
      ? []
      : (await gitOut(root, ['diff', '--name-only', `${baseTip}...${tip}`])).split('\n').filter(Boolean);
  const { title, body } = describePr({ name: session.name, prompt: session.prompt, commits, files });
  const gh = await openWithGh({ repo: root, base, branch: head, title, body, env: input.env });
  let via: PrView['via'];
  let url: string | null;
  let note: string | null = null;
  if (gh.via === 'gh') {
    via = 'gh';
    url = gh.url;
  } else {
    url = compareUrl(pushed.remoteUrl, base, head) ?? null;
    via = url === null ? 'none' : 'url';
    note = `${gh.why}; ${url === null ? `the branch ${head} is pushed to ${remote}: open a pull request there by hand` : 'open the pull request at the URL'}.`;
  }
  input.bus.publish(PrOpened, { ...who, via, url, base, branch: head });
  return {
    sessionId: session.id,
    name: session.name,
    remote,
    branch: head,
    base,
    commit: pushed.commit,
    via,
    url,
    note,
    committedWork: committed?.committed ?? false,
  };
}
