/**
 * Which turn last wrote each line of a session's work: `git blame` over the session's turn chain
 * (chain.ts), topped, when the work differs from the last turn's snapshot, by one commit holding
 * the work as it is (lines only it brings were written after the last turn, by no turn: a person,
 * or the agent between Baton's snapshots).
 */
import { git, gitOut } from '../worktrees/index.js';
import { chainRecords, chainTip } from './chain.js';
import { parseBlame } from './diff.js';
import type { TurnRecord } from './record.js';

/** Per changed file of the work: for each line (index 0 is line 1), the index of its turn in `turns`, or -1. */
export interface Attribution {
  turns: TurnRecord[];
  files: Map<string, Int32Array>;
}

export async function attributeWork(input: {
  root: string;
  sessionId: string;
  base: string;
  /** The commit (or tree) holding the session's whole work (its branch tip once Baton committed what was on disk). */
  tip: string;
  /** Only these files (the page's view of one file); every changed file when unset. */
  only?: readonly string[];
}): Promise<Attribution> {
  const { root, base, tip } = input;
  const empty: Attribution = { turns: [], files: new Map() };
  const chain = await chainTip(root, input.sessionId);
  if (chain === undefined) return empty;
  const onBase = await git(root, ['merge-base', '--is-ancestor', base, chain], { okExitCodes: [1] });
  if (onBase.exitCode !== 0) return empty;
  const records = await chainRecords(root, base, chain);
  if (records.size === 0) return empty;
  const [tipTree, chainTree] = (await gitOut(root, ['rev-parse', `${tip}^{tree}`, `${chain}^{tree}`])).split(
    '\n',
  );
  const top =
    tipTree === chainTree
      ? chain
      : await gitOut(
          root,
          ['commit-tree', tipTree!, '-p', chain, '-m', 'baton: the work after its last recorded turn'],
          {
            env: {
              GIT_AUTHOR_NAME: 'Baton',
              GIT_AUTHOR_EMAIL: 'baton@localhost',
              GIT_COMMITTER_NAME: 'Baton',
              GIT_COMMITTER_EMAIL: 'baton@localhost',
            },
          },
        );
  const changed = (
    await gitOut(root, ['diff', '--name-only', '-z', '--no-renames', '--diff-filter=AMT', base, top])
  )
    .split('\0')
    .filter((p) => p !== '' && (input.only === undefined || input.only.includes(p)));
  const turns: TurnRecord[] = [];
  const indexOf = new Map<string, number>();
  for (const [sha, record] of records) {
    indexOf.set(sha, turns.length);
    turns.push(record);
  }
  const files = new Map<string, Int32Array>();
  for (const path of changed) {
    const blamed = await git(
      root,
      ['--literal-pathspecs', 'blame', '--porcelain', `${base}..${top}`, '--', path],
      {
        okExitCodes: [128],
      },
    );
    if (blamed.exitCode !== 0) continue;
    const lines = parseBlame(blamed.stdout);
    const owners = new Int32Array(lines.length).fill(-1);
    for (const line of lines) owners[line.line - 1] = line.boundary ? -1 : (indexOf.get(line.commit) ?? -1);
    files.set(path, owners);
  }
  return { turns, files };
}

/**
 * One file of a session's work: each line's turn, as an index into the turns this file's lines
 * name (each once, in order of first use), or -1 where no turn wrote it (decision 295).
 */
export async function attributeFile(input: {
  root: string;
  sessionId: string;
  base: string;
  tip: string;
  path: string;
}): Promise<{ turns: TurnRecord[]; lines: number[] }> {
  const attribution = await attributeWork({ ...input, only: [input.path] });
  const owners = attribution.files.get(input.path);
  if (owners === undefined) return { turns: [], lines: [] };
  const used = new Map<number, number>();
  const turns: TurnRecord[] = [];
  const lines = Array.from(owners, (owner) => {
    if (owner < 0) return -1;
    let index = used.get(owner);
    if (index === undefined) {
      index = turns.length;
      used.set(owner, index);
      turns.push(attribution.turns[owner]!);
    }
    return index;
  });
  return { turns, lines };
}
