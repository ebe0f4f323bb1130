/**
 * Each repository's identity across machines (decision 130's `canonicalRemote` of its sync
 * remote), looked up once per checkout: published with every session's view, so another machine
 * finds its own checkout of the same repository (review, radar and merge from any machine).
 */
import { remoteKey } from '../cluster/clones.js';

export class RepoKeys {
  private readonly known = new Map<string, string | null>();
  private readonly looking = new Map<string, Promise<string | null>>();

  /** The key when it is known (null: the checkout has no sync remote), else undefined. */
  peek(root: string): string | null | undefined {
    return this.known.get(root);
  }

  /** The key, looked up the first time (a checkout that cannot be read has none, and is asked again next time). */
  of(root: string): Promise<string | null> {
    const known = this.known.get(root);
    if (known !== undefined) return Promise.resolve(known);
    let looking = this.looking.get(root);
    if (looking === undefined) {
      looking = remoteKey(root).then(
        (key) => {
          this.known.set(root, key ?? null);
          return key ?? null;
        },
        () => null,
      );
      void looking.finally(() => this.looking.delete(root));
      this.looking.set(root, looking);
    }
    return looking;
  }

  /** Every lookup under way finished. */
  async settled(): Promise<void> {
    await Promise.all(this.looking.values());
  }
}
