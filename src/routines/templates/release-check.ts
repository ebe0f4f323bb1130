/**
 * The release-notes check: for a tag (the trigger's, or the newest), the release notes at that
 * tag against the commit log since the previous tag; the agent reports what the notes miss or
 * claim without a commit.
 */
import { git, gitOut } from '../../worktrees/index.js';
import { stringOption, type RoutineTemplate } from './template.js';

const NOTES_FILES = ['CHANGELOG.md', 'RELEASE_NOTES.md', 'CHANGES.md', 'NEWS.md', 'HISTORY.md'];
const MAX_COMMITS = 500;
const MAX_NOTES = 20_000;

export const releaseNotesCheck: RoutineTemplate = {
  name: 'release-notes-check',
  description:
    'the release notes at a tag against the commit log since the previous tag; differences reported',
  options: { notesFile: '' },
  async prepare(ctx) {
    const root = ctx.projectRoot;
    const tag =
      ctx.detail.tag ??
      (await git(root, ['describe', '--tags', '--abbrev=0'], { okExitCodes: [128] })).stdout.trim();
    if (tag === '') return { nothing: 'the repository has no tag yet' };
    const previous = (
      await git(root, ['describe', '--tags', '--abbrev=0', `${tag}^`], { okExitCodes: [128] })
    ).stdout.trim();
    const range = previous === '' ? tag : `${previous}..${tag}`;
    const log = await gitOut(root, [
      'log',
      '--no-merges',
      `--max-count=${MAX_COMMITS}`,
      '--format=%h %s',
      range,
      '--',
    ]);
    const notesFile = stringOption(ctx, 'notesFile') ?? (await firstAtTag(root, tag));
    const notes =
      notesFile === undefined
        ? undefined
        : (await git(root, ['show', `${tag}:${notesFile}`], { okExitCodes: [128] })).stdout;
    return {
      prompt: [
        `Check the release notes of ${tag} against what changed since ${previous === '' ? 'the first commit' : previous}.`,
        notes === undefined || notes === ''
          ? `The repository has no release notes file at ${tag} (looked for ${notesFile ?? NOTES_FILES.join(', ')}): report that, and draft the notes from the log.`
          : `Release notes (${notesFile} at ${tag}):\n\n${notes.slice(0, MAX_NOTES)}`,
        '',
        `Commits ${range}:`,
        log === '' ? '(none)' : log,
        '',
        'Report changes the notes leave out, entries with no matching commit, and wrong version numbers. Do not change any files. If the notes match the log, your final message is exactly "NOTHING TO REPORT".',
      ].join('\n'),
    };
  },
};

async function firstAtTag(root: string, tag: string): Promise<string | undefined> {
  const listing = await gitOut(root, ['ls-tree', '--name-only', tag]);
  const files = new Set(listing.split('\n'));
  return NOTES_FILES.find((f) => files.has(f));
}
