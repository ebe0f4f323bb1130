/**
 * A session's collisions (the conflict radar) on its page: with whom, which files and lines, and
 * the other side's change. Fetched only for a session whose card carries a badge, and again when
 * the badge changes.
 */
import { useEffect, useState } from 'react';
import type { ConflictBadge, ConflictsView, LineRange } from '../../../src/api/conflicts.js';
import { api } from '../api.js';

export function ConflictPanel({ sessionId, badge }: { sessionId: string; badge: ConflictBadge | undefined }) {
  const [view, setView] = useState<ConflictsView | undefined>();
  const signature = badge === undefined ? '' : JSON.stringify(badge);
  useEffect(() => {
    if (signature === '') return setView(undefined);
    let current = true;
    api.call('GET /api/conflicts', { query: { session: sessionId } }).then(
      (answer) => current && setView(answer),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [sessionId, signature]);
  if (badge === undefined || view === undefined || view.conflicts.length === 0) return null;
  return (
    <section className="conflicts" data-testid="conflicts">
      <h3>Will collide before anyone merges</h3>
      {view.conflicts.map((c) => {
        const mine = c.a.sessionId === sessionId ? 'a' : 'b';
        const other = mine === 'a' ? c.b : c.a;
        const otherName = other.kind === 'session' ? other.name : `base ${other.ref}`;
        return (
          <div key={c.key} className={`conflict-pair conflict-pair-${c.level}`}>
            <p>
              <span className={`conflict conflict-${c.level}`}>{c.level}</span> with{' '}
              <strong>{otherName}</strong>
              {c.note !== null && <span className="muted"> — {c.note}</span>}
            </p>
            <ul>
              {c.files.map((f) => (
                <li key={f.path}>
                  <details>
                    <summary>
                      <code>{f.path}</code>: your {ranges(mine === 'a' ? f.a.hunks : f.b.hunks)}; theirs{' '}
                      {ranges(mine === 'a' ? f.b.hunks : f.a.hunks)}
                      {f.overlapping
                        ? ' (same lines)'
                        : f.mergeConflict === true
                          ? ' (git cannot merge it)'
                          : ' (same file, other lines)'}
                    </summary>
                    <pre className="conflict-diff">{mine === 'a' ? f.b.diff : f.a.diff}</pre>
                  </details>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </section>
  );
}

function ranges(hunks: LineRange[]): string {
  if (hunks.length === 0) return 'no lines';
  const text = hunks.map((h) =>
    h.count >= Number.MAX_SAFE_INTEGER
      ? 'whole file'
      : h.count === 0
        ? `after line ${h.start}`
        : h.count === 1
          ? `line ${h.start}`
          : `lines ${h.start}-${h.start + h.count - 1}`,
  );
  return text.length > 4 ? `${text.slice(0, 4).join(', ')} and ${text.length - 4} more` : text.join(', ');
}
