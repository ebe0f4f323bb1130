/**
 * A JSON answer kept as its bytes: serialized once, on its first send, and the same bytes sent
 * again to every request until what it shows changes and its owner makes a new one (decision 465, "The kept board is sent as bytes made once, with a tag for a reload").
 * Its entity tag is a digest of those bytes, so a client that holds them already (a page
 * reloading the board) is told "not modified" instead of being sent them again.
 *
 * The value is kept beside the bytes for callers in the supervisor's own process, which read it as
 * they would any answer; it is frozen by its owner, as the bytes could not follow a change to it.
 */
import { createHash } from 'node:crypto';

export class PreparedJson<T> {
  private sent: { bytes: Buffer; etag: string } | undefined;

  constructor(readonly value: T) {}

  /** The value as JSON, exactly as `JSON.stringify` writes it: serialized on the first call only. */
  get bytes(): Buffer {
    return this.prepared().bytes;
  }

  /** A strong entity tag, quoted as the header carries it: the same bytes always have the same tag. */
  get etag(): string {
    return this.prepared().etag;
  }

  /**
   * Whether an `If-None-Match` header names these bytes: `*`, or any of its tags (weakly compared,
   * as the header's rule is: a `W/` prefix is ignored).
   */
  matches(ifNoneMatch: string | undefined): boolean {
    if (ifNoneMatch === undefined) return false;
    const given = ifNoneMatch.trim();
    if (given === '*') return true;
    return given
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .includes(this.etag);
  }

  private prepared(): { bytes: Buffer; etag: string } {
    if (this.sent === undefined) {
      const bytes = Buffer.from(JSON.stringify(this.value));
      const digest = createHash('sha1').update(bytes).digest('base64url');
      this.sent = { bytes, etag: `"${digest}"` };
    }
    return this.sent;
  }
}
