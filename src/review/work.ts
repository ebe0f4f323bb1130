/**
 * One session's work as coupling needs it: the files it changed against its base, and where
 * those files point (imports, and for tests one import further). Read from the snapshot's tree,
 * not from any checkout, and cached by object ids: a (base, tree) pair is analysed once, a blob's
 * imports are scanned once, a base commit is listed once for all the sessions started from it —
 * so listing groups again over unchanged work costs only the snapshots.
 */
import type { Edge } from './coupling.js';
import {
  importSpecifiers,
  isCode,
  isRelative,
  isTest,
  resolvedImports,
  resolveSpecifier,
} from './imports.js';
import {
  blobSizes,
  Bounded,
  changedBlobs,
  isBinary,
  listTree,
  MAX_SCANNED_BYTES,
  readBlobs,
  type TreeFile,
} from './objects.js';

export interface WorkAnalysis {
  changed: string[];
  /** Import edges from the changed code files (tests: direct and through one import). */
  edges: Edge[];
  /** Changed files that are neither code nor binary nor huge: scanned for references to others' paths. */
  texts: { path: string; oid: string }[];
  /** Files this work adds (not in its base). */
  added: string[];
  /**
   * Relative imports of the changed code files that name no file of this work's tree: resolved
   * afterwards against the files other live sessions add (a test of a module another session is
   * writing), see `computeGroups`.
   */
  unresolved: { from: string; specifier: string; kind: 'imports' | 'tests' }[];
}

export class WorkAnalyzer {
  /** Listings of base commits: few (sessions mostly share a base), and large in a big repository. */
  private readonly trees = new Bounded<string, Promise<Map<string, TreeFile>>>(8);
  private readonly analyses = new Bounded<string, Promise<WorkAnalysis>>(1024);
  private readonly specifiers = new Bounded<string, string[]>(50_000);
  private readonly texts = new Bounded<string, string>(5_000);
  /** Counts for the benchmark and the tests: how much was done rather than taken from the caches. */
  readonly stats = { analyses: 0, scanned: 0 };

  /** The analysis of `tree` (a session's snapshot) against `base`, in the repository at `cwd`. */
  analyze(cwd: string, base: string, tree: string): Promise<WorkAnalysis> {
    const key = `${base}:${tree}`;
    const cached = this.analyses.get(key);
    if (cached !== undefined) return cached;
    const running = this.run(cwd, base, tree);
    // A failure is not cached: the next call tries again.
    running.catch(() => this.analyses.delete(key));
    return this.analyses.set(key, running);
  }

  /** The text of a blob (cached by its id). */
  async text(cwd: string, oid: string): Promise<string> {
    const cached = this.texts.get(oid);
    if (cached !== undefined) return cached;
    const text = (await readBlobs(cwd, [oid])).get(oid) ?? '';
    return this.texts.set(oid, text);
  }

  tree(cwd: string, tree: string): Promise<Map<string, TreeFile>> {
    const cached = this.trees.get(tree);
    if (cached !== undefined) return cached;
    const listing = listTree(cwd, tree);
    listing.catch(() => this.trees.delete(tree));
    return this.trees.set(tree, listing);
  }

  private async run(cwd: string, base: string, tree: string): Promise<WorkAnalysis> {
    this.stats.analyses++;
    // The base is listed once for every session started from it; a session's tree is the base
    // plus its own changes, so nothing per session lists the whole repository.
    const [changes, baseFiles] = await Promise.all([changedBlobs(cwd, base, tree), this.tree(cwd, base)]);
    const changed = changes.map((c) => c.path);
    const own = new Map(changes.filter((c) => c.oid !== null).map((c) => [c.path, c.oid!]));
    const removed = new Set(changes.filter((c) => c.oid === null).map((c) => c.path));
    const sizes = await blobSizes(cwd, [...own.values()]);
    const files: { get(path: string): TreeFile | undefined } = {
      get: (path) => {
        const oid = own.get(path);
        if (oid !== undefined) return { oid, size: sizes.get(oid) ?? Number.MAX_SAFE_INTEGER };
        return removed.has(path) ? undefined : baseFiles.get(path);
      },
    };
    const paths = { has: (path: string) => files.get(path) !== undefined };
    const present = changed.filter((p) => own.has(p) && files.get(p)!.size <= MAX_SCANNED_BYTES);
    const code = present.filter(isCode);
    await this.scan(
      cwd,
      code.map((p) => [p, files.get(p)!.oid]),
    );

    const edges: Edge[] = [];
    const hops: { test: string; through: string }[] = [];
    const unresolved: WorkAnalysis['unresolved'] = [];
    for (const from of code) {
      const test = isTest(from);
      const specifiers = this.specifiers.get(files.get(from)!.oid) ?? [];
      for (const specifier of specifiers)
        if (isRelative(specifier) && resolveSpecifier(from, specifier, paths) === undefined)
          unresolved.push({ from, specifier, kind: test ? 'tests' : 'imports' });
      for (const to of resolvedImports(from, specifiers, paths)) {
        edges.push({ from, to, kind: test ? 'tests' : 'imports' });
        if (test && isCode(to) && files.get(to)!.size <= MAX_SCANNED_BYTES)
          hops.push({ test: from, through: to });
      }
    }
    // A test exercises what it imports, and what those import in turn (one hop).
    await this.scan(
      cwd,
      hops.map((h) => [h.through, files.get(h.through)!.oid]),
    );
    for (const { test, through } of hops) {
      for (const to of resolvedImports(through, this.specifiers.get(files.get(through)!.oid) ?? [], paths)) {
        if (to !== test) edges.push({ from: test, to, kind: 'tests', via: through });
      }
    }

    const texts: WorkAnalysis['texts'] = [];
    const others = present.filter((p) => !isCode(p));
    const unread = others.map((p) => files.get(p)!.oid).filter((oid) => this.texts.get(oid) === undefined);
    for (const [oid, text] of await readBlobs(cwd, unread)) this.texts.set(oid, text);
    for (const path of others) {
      const oid = files.get(path)!.oid;
      if (!isBinary(this.texts.get(oid) ?? '')) texts.push({ path, oid });
    }
    const added = changes.filter((c) => c.oid !== null && !baseFiles.has(c.path)).map((c) => c.path);
    return { changed, edges, texts, added, unresolved };
  }

  /** Reads and scans the blobs whose imports are not known yet. */
  private async scan(cwd: string, files: [path: string, oid: string][]): Promise<void> {
    const unknown = new Map(
      files.filter(([, oid]) => this.specifiers.get(oid) === undefined).map(([path, oid]) => [oid, path]),
    );
    if (unknown.size === 0) return;
    const blobs = await readBlobs(cwd, [...unknown.keys()]);
    for (const [oid, path] of unknown) {
      this.stats.scanned++;
      const text = blobs.get(oid) ?? '';
      // The blob's syntax (TSX or not) is its path's: one blob under two names is rare enough to parse once.
      this.specifiers.set(oid, isBinary(text) ? [] : importSpecifiers(text, path));
    }
  }
}
