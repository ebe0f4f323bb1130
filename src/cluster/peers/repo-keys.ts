/**
 * Each repository's identity across machines (decision 130's `canonicalRemote` of its sync
 * remote), looked up once per checkout and again after a minute (a remote added, or `sync.remote`
 * changed): published with every session's view, so another machine finds its own checkout of the
 * same repository (review, radar, merge and handoff from any machine). A checkout whose lookup
 * fails (its config broken mid-edit, its folder moved) has no identity until a later lookup works.
 */
import { remoteKey } from '../clones.js';

const FRESH_MS = 60_000;

export class RepoKeys {
  private readonly known = new Map<string, { key: string | null; at: number }>();
  private readonly looking = new Map<string, Promise<string | null>>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The key when it was looked up (null: none), else undefined; one older than a minute is looked up again meanwhile. */
  peek(root: string): string | null | undefined {
    const known = this.known.get(root);
    if (known !== undefined && this.now() - known.at >= FRESH_MS) void this.lookUp(root);
    return known?.key;
  }

  /** The key, looked up when it never was or is older than a minute. Never rejects. */
  of(root: string): Promise<string | null> {
    const known = this.known.get(root);
    if (known !== undefined && this.now() - known.at < FRESH_MS) return Promise.resolve(known.key);
    return this.lookUp(root);
  }

  /** Every lookup under way finished. */
  async settled(): Promise<void> {
    await Promise.all(this.looking.values());
  }

  private lookUp(root: string): Promise<string | null> {
    let looking = this.looking.get(root);
    if (looking !== undefined) return looking;
    looking = remoteKey(root).then(
      (key) => key ?? null,
      () => null,
    );
    looking = looking.then((key) => {
      this.known.set(root, { key, at: this.now() });
      this.looking.delete(root);
      return key;
    });
    this.looking.set(root, looking);
    return looking;
  }
}
