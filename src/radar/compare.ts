/**
 * Comparing two sides' work against their merge base, with caches keyed by content: a side's
 * diff by (base, tree), a pair's answer by both sides' (head, tree) — or the base tip — so a
 * pass recomputes only the pairs whose work changed, and git's merge verdict by what it reads of
 * the pair and the repository (`verdictKey`, `MergeReads`), so a pair whose files both change did
 * not change asks no merge-tree again (decision 467, "A radar pass lists a repository's settings
 * once, and asks git's merge verdict again only when what it reads changed").
 * Pairs whose changed paths are disjoint are settled without a git call. Every entry is marked
 * when used; `sweep` drops the rest after a pass.
 */
import type { ConflictFile, ConflictLevel } from '../api/conflicts.js';
import { GitError } from '../shared/errors.js';
import { listSettings, snapshotCommit, type SharedListing, type WorkSnapshot } from '../worktrees/index.js';
import {
  diffArgs,
  hunksCollide,
  mapRanges,
  parseDiff,
  parseShifts,
  shiftArgs,
  type FileChange,
  type Shift,
  type WorkDiff,
} from './diff.js';
import { DEFAULT_GIT_TIMEOUT_MS, type GitRunner } from './git-runner.js';
import { fileLevel, pairLevel } from './level.js';
import { MergeReads, mergeSettings } from './merge-reads.js';
import { pathsInBoth, verdictKey } from './verdict-key.js';

/** One side of a comparison: a session's snapshot, or a base branch's tip (head = tree's commit). */
export interface Side {
  head: string;
  tree: string;
  /** Where to run git for this side's snapshot commit (its worktree); undefined for a base tip. */
  worktree?: string;
  /** A commit whose tree is `tree`, when one exists already (another machine's pushed work). */
  commit?: string;
  /** The head's own tree, when the snapshot read it. */
  headTree?: string;
}

export interface PairResult {
  level: ConflictLevel | null;
  mergeBase: string;
  files: ConflictFile[];
  note: string | null;
  /** Settled by disjoint paths, without a git call. */
  disjoint: boolean;
  /** The key of git's merge verdict it used (`verdictKey`), kept while the pair's answer is. */
  verdictKey?: string;
}

export interface CompareCounters {
  cacheHits: number;
  timedOut: number;
}

/** Two sessions' merge base, and whether it is their only one (so git merges against it and nothing else). */
export interface MergeBase {
  commit: string;
  sole: boolean;
}

class MarkedCache<V> {
  private readonly entries = new Map<string, { value: V; used: boolean }>();
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.used = true;
    return entry?.value;
  }
  /** Drops `value` from `key`, unless another value has taken its place meanwhile. */
  forget(key: string, value: V): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }
  /** Marks an entry used without reading it: another entry's answer was built on it. */
  keep(key: string): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.used = true;
  }
  set(key: string, value: V): V {
    this.entries.set(key, { value, used: true });
    return value;
  }
  /** Caches a promise; a failure is not an answer, so it is forgotten and the next pass tries again. */
  setPromise<T>(this: MarkedCache<Promise<T>>, key: string, value: Promise<T>): Promise<T> {
    this.entries.set(key, { value, used: true });
    void value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
  sweep(): void {
    for (const [key, entry] of this.entries) {
      if (!entry.used) this.entries.delete(key);
      else entry.used = false;
    }
  }
  get size(): number {
    return this.entries.size;
  }
}

const EMPTY_SIDE = { hunks: [], diff: '', binary: false };

/** Git's answer to a merge-tree, with the merge settings it ran with (undefined: not known). */
interface MergeVerdict {
  conflicted: Set<string>;
  settings: string | undefined;
}

export class Comparer {
  private readonly diffs = new MarkedCache<Promise<WorkDiff>>();
  private readonly mergeBases = new MarkedCache<Promise<string>>();
  private readonly lines = new MarkedCache<Promise<Set<string> | undefined>>();
  private readonly commits = new MarkedCache<Promise<string>>();
  private readonly pairs = new MarkedCache<Promise<PairResult>>();
  private readonly shiftCache = new MarkedCache<Promise<Map<string, Shift[] | 'whole'>>>();
  private readonly verdicts = new MarkedCache<Promise<Set<string>>>();
  /** This pass's listing of each repository's settings, shared by its diffs there; each merge-tree lists its own (decision 467). */
  private listings = new Map<string, SharedListing>();
  private readonly reads = new MergeReads();
  readonly counters: CompareCounters = { cacheHits: 0, timedOut: 0 };

  constructor(private readonly git: GitRunner) {}

  /** A pass begins: its calls list each repository's settings once more, never reusing an earlier pass's listing. */
  beginPass(): void {
    this.listings = new Map();
    this.reads.beginPass();
  }

  /**
   * Lists `repo`'s settings now, for this pass's diffs there and the key of git's merge verdict,
   * beside the pass's snapshots rather than in front of its first diff (decision 467).
   */
  listSettingsNow(repo: string): void {
    // A listing that fails fails the calls that await it, which report it; nothing to add here.
    listSettings(repo, this.listingFor(repo), { timeoutMs: DEFAULT_GIT_TIMEOUT_MS }).catch(() => undefined);
  }

  /** This pass's listing of `repo`'s settings, listed now when no call of the pass has yet. */
  private async passSettings(repo: string): Promise<string> {
    const listing = this.listingFor(repo);
    if (listing.entries === undefined)
      await listSettings(repo, listing, { timeoutMs: DEFAULT_GIT_TIMEOUT_MS });
    return mergeSettings((await listing.entries) ?? []);
  }

  private listingFor(repo: string): SharedListing {
    let listing = this.listings.get(repo);
    if (listing === undefined) {
      listing = {};
      this.listings.set(repo, listing);
    }
    return listing;
  }

  /** Cached answer for a pair; `compute` runs only when either side's work (or the base tip) changed. */
  pair(key: string, compute: () => Promise<PairResult>): Promise<{ result: PairResult; cached: boolean }> {
    const hit = this.pairs.get(key);
    if (hit !== undefined) {
      this.counters.cacheHits++;
      return hit.then((result) => {
        // The verdict stays while the answer built on it does: the pair's next change may ask for it.
        if (result.verdictKey !== undefined) this.verdicts.keep(result.verdictKey);
        return { result, cached: true };
      });
    }
    return this.pairs.setPromise(key, compute()).then((result) => ({ result, cached: false }));
  }

  /** Compares two sides' work against the merge base `base`: shared files, their hunks, and git's own verdict. */
  async compare(repo: string, base: string | MergeBase, a: Side, b: Side): Promise<PairResult> {
    const sole = typeof base === 'string' ? false : base.sole;
    if (typeof base !== 'string') base = base.commit;
    const [diffA, diffB] = await Promise.all([this.diff(repo, base, a.tree), this.diff(repo, base, b.tree)]);
    const shared = sharedPaths(diffA, diffB);
    if (shared.length === 0) return { level: null, mergeBase: base, files: [], note: null, disjoint: true };
    const overlap = new Map(
      shared.map((path) => [path, hunksCollide(diffA.get(path)!.hunks, diffB.get(path)!.hunks)]),
    );
    // Git's verdict only matters when the hunks leave the level open: with every shared file
    // overlapping the pair is hot already, and a merge-tree (the costliest call) is saved.
    const ask = [...overlap.values()].some((overlapping) => !overlapping);
    let conflicted = new Set<string>();
    let note: string | null = null;
    let key: string | undefined;
    if (ask) {
      try {
        const cacheable = sole ? await this.keyOf(repo, a, b, diffA, diffB) : undefined;
        key = cacheable?.key;
        conflicted = await this.verdict(cacheable, () => this.mergeTree(repo, a, b));
      } catch (error) {
        if (!(error instanceof GitError)) throw error;
        if (/timed out/.test(error.message)) this.counters.timedOut++;
        note = `${error.message}; the level rests on the hunks alone`;
      }
    }
    const files: ConflictFile[] = [];
    for (const path of new Set([...shared, ...conflicted])) {
      const fa: FileChange | undefined = diffA.get(path);
      const fb: FileChange | undefined = diffB.get(path);
      const overlapping = overlap.get(path) ?? false;
      const mergeConflict = ask && note === null ? conflicted.has(path) : null;
      files.push({
        path,
        level: fileLevel({ overlapping, mergeConflict }),
        overlapping,
        mergeConflict,
        a: fa === undefined ? EMPTY_SIDE : { hunks: fa.hunks, diff: fa.diff, binary: fa.binary },
        b: fb === undefined ? EMPTY_SIDE : { hunks: fb.hunks, diff: fb.diff, binary: fb.binary },
      });
    }
    return {
      level: pairLevel(files),
      mergeBase: base,
      files: sortFiles(files),
      note,
      disjoint: false,
      ...(key === undefined ? {} : { verdictKey: key }),
    };
  }

  /**
   * Compares two sessions that forked from different base commits (one started, or caught up,
   * after work landed on the base): each side's own change, against its own fork point, so what
   * landed in between is nobody's change here (it is each session's collision with its base,
   * compared on its own). `b`'s ranges are carried into `a`'s fork's lines through the base's
   * changes between the two forks; git's merge verdict is not asked, as a merge of the two heads
   * would count the landed work as one side's change again.
   */
  async compareForked(
    repo: string,
    a: Side & { fork: string },
    b: Side & { fork: string },
  ): Promise<PairResult> {
    const [diffA, diffB] = await Promise.all([
      this.diff(repo, a.fork, a.tree),
      this.diff(repo, b.fork, b.tree),
    ]);
    const shared = sharedPaths(diffA, diffB);
    if (shared.length === 0) return { level: null, mergeBase: a.fork, files: [], note: null, disjoint: true };
    const moved = await this.shifts(repo, b.fork, a.fork, shared);
    const files: ConflictFile[] = shared.map((path) => {
      const fa = diffA.get(path)!;
      const fb = diffB.get(path)!;
      const hunksB = mapRanges(fb.hunks, moved.get(path));
      const overlapping = hunksCollide(fa.hunks, hunksB);
      return {
        path,
        level: fileLevel({ overlapping, mergeConflict: null }),
        overlapping,
        mergeConflict: null,
        a: { hunks: fa.hunks, diff: fa.diff, binary: fa.binary },
        b: { hunks: hunksB, diff: fb.diff, binary: fb.binary },
      };
    });
    return {
      level: pairLevel(files),
      mergeBase: a.fork,
      files: sortFiles(files),
      note: null,
      disjoint: false,
    };
  }

  /**
   * Where a session's own work starts: the merge base of its head and its base branch's tip now.
   * Its base commit while the base has not moved (no git call); once its commits have landed, or
   * it has merged the base in, the later point, so landed work is never counted as its own.
   */
  forkPoint(
    repo: string,
    side: { head: string; baseCommit: string; tip: string | undefined },
  ): Promise<string> {
    if (side.tip === undefined || side.tip === side.baseCommit) return Promise.resolve(side.baseCommit);
    const key = `fork:${side.head}:${side.tip}`;
    const hit = this.mergeBases.get(key);
    if (hit !== undefined) {
      this.counters.cacheHits++;
      return hit;
    }
    const found = this.git
      .out(repo, ['merge-base', side.head, side.tip])
      // No common history with the tip (an unrelated base): the commit it started from.
      .catch((error: unknown) => {
        if (error instanceof GitError) return side.baseCommit;
        throw error;
      })
      .then((out) => (out === '' ? side.baseCommit : out));
    return this.mergeBases.setPromise(key, found);
  }

  /** The base's line changes between two fork points, for the files two sessions both change. */
  private shifts(
    repo: string,
    from: string,
    to: string,
    paths: string[],
  ): Promise<Map<string, Shift[] | 'whole'>> {
    const key = `${from}:${to}:${paths.join('\0')}`;
    const hit = this.shiftCache.get(key);
    if (hit !== undefined) {
      this.counters.cacheHits++;
      return hit;
    }
    return this.shiftCache.setPromise(
      key,
      this.git
        .run(repo, shiftArgs(from, to, paths), { listing: this.listingFor(repo) })
        .then((r) => parseShifts(r.stdout)),
    );
  }

  /** The changed paths of `tree` against `base`, with hunks and diff text: one git call per (base, tree), ever. */
  diff(repo: string, base: string, tree: string): Promise<WorkDiff> {
    const key = `${base}:${tree}`;
    const hit = this.diffs.get(key);
    if (hit !== undefined) {
      this.counters.cacheHits++;
      return hit;
    }
    return this.diffs.setPromise(
      key,
      this.git
        .run(repo, diffArgs(base, tree), { listing: this.listingFor(repo) })
        .then((r) => parseDiff(r.stdout)),
    );
  }

  /**
   * The merge base of two sessions' heads. No git call when both branched from the same base
   * commit and each has only its own straight line of commits since (the usual case: one
   * `rev-list` per head, cached, instead of a `merge-base` per pair), and then it is their only
   * one; `git merge-base` otherwise, which names one of several when there are (`sole` false).
   */
  async mergeBase(
    repo: string,
    a: { head: string; baseCommit: string },
    b: { head: string; baseCommit: string },
  ): Promise<MergeBase> {
    if (a.baseCommit === b.baseCommit) {
      const [la, lb] = await Promise.all([this.line(repo, a), this.line(repo, b)]);
      if (la !== undefined && lb !== undefined && ![...la].some((commit) => lb.has(commit)))
        return { commit: a.baseCommit, sole: true };
    }
    const key = [a.head, b.head].sort().join(':');
    const hit = this.mergeBases.get(key);
    if (hit !== undefined) {
      this.counters.cacheHits++;
      return { commit: await hit, sole: false };
    }
    const found = this.mergeBases.setPromise(key, this.git.out(repo, ['merge-base', a.head, b.head]));
    return { commit: await found, sole: false };
  }

  /**
   * The key of git's merge verdict for a pair: what it reads of the two sides (`verdictKey`),
   * then of the repository — its attributes and merge settings as this pass's listing found them
   * (`settings`), and which repository it is (`MergeReads`). Undefined: git is asked every time.
   */
  private async keyOf(
    repo: string,
    a: Side,
    b: Side,
    diffA: WorkDiff,
    diffB: WorkDiff,
  ): Promise<{ key: string; settings: string } | undefined> {
    const sides = verdictKey(a, b, diffA, diffB);
    if (sides === undefined) return undefined;
    const settings = await this.passSettings(repo);
    const repository = await this.reads.of(repo, settings, pathsInBoth(diffA, diffB));
    return repository === undefined ? undefined : { key: `${sides}\0repository\0${repository}`, settings };
  }

  /**
   * Git's merge verdict for a pair, from the cache when its key was answered before. A merge-tree
   * that found other merge settings than the pass's listing (the key's `settings`: one changed
   * meanwhile) is an answer for now, not one to keep under that key.
   */
  private verdict(
    cacheable: { key: string; settings: string } | undefined,
    ask: () => Promise<MergeVerdict>,
  ): Promise<Set<string>> {
    if (cacheable === undefined) return ask().then((verdict) => verdict.conflicted);
    const { key, settings } = cacheable;
    const hit = this.verdicts.get(key);
    if (hit !== undefined) {
      this.counters.cacheHits++;
      return hit;
    }
    const asked: Promise<Set<string>> = ask().then((verdict) => {
      if (verdict.settings !== settings) this.verdicts.forget(key, asked);
      return verdict.conflicted;
    });
    return this.verdicts.setPromise(key, asked);
  }

  /** The commits from `baseCommit` to `head` when they are one straight line on top of it; undefined otherwise (a merge, or a head not descending from it). */
  private line(repo: string, side: { head: string; baseCommit: string }): Promise<Set<string> | undefined> {
    if (side.head === side.baseCommit) return Promise.resolve(new Set());
    const key = `${side.baseCommit}..${side.head}`;
    const hit = this.lines.get(key);
    if (hit !== undefined) {
      this.counters.cacheHits++;
      return hit;
    }
    const listed = this.git.out(repo, ['rev-list', '--parents', '--end-of-options', key]).then((out) => {
      const rows = out === '' ? [] : out.split('\n').map((row) => row.split(' '));
      // Straight: every commit has one parent, and the last one's parent is the base commit.
      if (rows.some((row) => row.length !== 2) || rows.at(-1)?.[1] !== side.baseCommit) return undefined;
      return new Set(rows.map((row) => row[0] as string));
    });
    return this.lines.setPromise(key, listed);
  }

  /**
   * Paths `git merge-tree --write-tree` cannot merge; its natural merge base is the sides' heads'
   * own. Unlike a diff, a merge runs the merge drivers the settings name, so each merge-tree lists
   * the settings itself, just before it runs (as decision 450 had), never from the pass's listing.
   */
  private async mergeTree(repo: string, a: Side, b: Side): Promise<MergeVerdict> {
    const [ca, cb] = await Promise.all([this.commit(a), this.commit(b)]);
    const own: SharedListing = {};
    const result = await this.git.run(
      repo,
      ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ca, cb],
      { okExitCodes: [1], listing: own },
    );
    const settings = own.entries === undefined ? undefined : mergeSettings(await own.entries);
    if (result.exitCode === 0) return { conflicted: new Set(), settings };
    const [, ...paths] = result.stdout.split('\0');
    return { conflicted: new Set(paths.filter((p) => p !== '')), settings };
  }

  /** A side as a commit: the snapshot commit of its work (made once per head and tree), or the tip itself. */
  private commit(side: Side): Promise<string> {
    if (side.commit !== undefined) return Promise.resolve(side.commit);
    if (side.worktree === undefined) return Promise.resolve(side.head);
    const key = `${side.head}:${side.tree}`;
    const hit = this.commits.get(key);
    if (hit !== undefined) {
      this.counters.cacheHits++;
      return hit;
    }
    // The head's tree from the snapshot spares a rev-parse; the commit is nobody's to keep, so unsigned (decision 449).
    this.git.calls += side.headTree === undefined ? 2 : 1;
    const snapshot: WorkSnapshot = {
      head: side.head,
      tree: side.tree,
      ...(side.headTree === undefined ? {} : { headTree: side.headTree }),
    };
    return this.commits.setPromise(
      key,
      snapshotCommit(side.worktree, snapshot, 'baton radar: work in progress', { unsigned: true }),
    );
  }

  sweep(): void {
    for (const cache of this.caches()) cache.sweep();
  }

  get cacheSize(): number {
    return this.caches().reduce((sum, cache) => sum + cache.size, 0);
  }

  private caches(): MarkedCache<unknown>[] {
    return [
      this.diffs,
      this.mergeBases,
      this.lines,
      this.commits,
      this.pairs,
      this.shiftCache,
      this.verdicts,
    ];
  }
}

/**
 * Paths both sides change, except those both leave with the same content (the same blob, or both
 * deleted): git merges identical changes cleanly, so they collide with nothing.
 */
function sharedPaths(a: WorkDiff, b: WorkDiff): string[] {
  return [...a.keys()].filter((path) => {
    const other = b.get(path);
    if (other === undefined) return false;
    const mine = a.get(path)!;
    return mine.blob === undefined || mine.blob !== other.blob;
  });
}

function sortFiles(files: ConflictFile[]): ConflictFile[] {
  return files.sort((x, y) =>
    x.level === y.level ? x.path.localeCompare(y.path) : x.level === 'hot' ? -1 : 1,
  );
}
