/**
 * The worktree's change against the session's base, rendered by diff2html. The HTML it produces
 * escapes file contents, so injecting it is safe. Reloads when the session logs new events.
 */
import { html, parse } from 'diff2html';
import 'diff2html/bundles/css/diff2html.min.css';
import type { ColorSchemeType } from 'diff2html/lib/types';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SessionView } from '../../../src/api/index.js';
import { api, ApiError, errorText } from '../api.js';
import { focusableLines, lineHandlers, LineWhy, useSessionBlame, type LineAt } from './LineProvenance.js';

type Layout = 'line-by-line' | 'side-by-side';

export function DiffView({ session }: { session: SessionView }) {
  const [diff, setDiff] = useState<{ text: string; truncated: boolean } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [layout, setLayout] = useState<Layout>(
    () => (localStorage.getItem('baton.diffLayout') as Layout | null) ?? 'line-by-line',
  );
  useEffect(() => {
    let current = true;
    loadDiff(session.id).then(
      (d) => current && (setDiff(d), setError(undefined)),
      (e: unknown) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [session.id, session.lastSeq]);

  const files = useMemo(() => (diff === undefined ? [] : parse(diff.text)), [diff]);
  const rendered = useMemo(
    () =>
      html(files, {
        drawFileList: true,
        matching: 'lines',
        outputFormat: layout,
        colorScheme: 'light' as ColorSchemeType,
      }),
    [files, layout],
  );
  // Each shown file's new path (none for a deleted file): its lines' writers, fetched once per file.
  const paths = useMemo(() => files.map((f) => (f.isDeleted === true ? '' : f.newName)), [files]);
  const blames = useSessionBlame(
    session.id,
    paths.filter((p) => p !== ''),
    session.lastSeq,
  );
  const [hovered, setHovered] = useState<LineAt | undefined>();
  const body = useRef<HTMLDivElement>(null);
  useEffect(() => focusableLines(body.current), [rendered]);
  if (error !== undefined) return <div className="empty error-text">{error}</div>;
  if (diff === undefined) return <div className="empty">Loading the diff…</div>;
  if (files.length === 0) return <div className="empty">No changes against {session.baseRef} yet.</div>;
  const added = files.reduce((n, f) => n + f.addedLines, 0);
  const deleted = files.reduce((n, f) => n + f.deletedLines, 0);
  return (
    <div className="diff" data-testid="diff">
      <div className="diff-bar">
        <span>
          {files.length} file{files.length === 1 ? '' : 's'} changed · <span className="plus">+{added}</span>{' '}
          <span className="minus">−{deleted}</span> against <code>{session.baseRef}</code> (
          {session.baseCommit.slice(0, 8)})
        </span>
        <span className="grow" />
        <div className="seg">
          {(['line-by-line', 'side-by-side'] as const).map((l) => (
            <button
              key={l}
              className={`seg-btn${layout === l ? ' active' : ''}`}
              onClick={() => {
                setLayout(l);
                localStorage.setItem('baton.diffLayout', l);
              }}
            >
              {l === 'line-by-line' ? 'Unified' : 'Split'}
            </button>
          ))}
        </div>
      </div>
      {diff.truncated && <div className="warn-bar">The diff is large; only the first part is shown.</div>}
      <div
        className="diff-body"
        ref={body}
        {...lineHandlers(paths, setHovered)}
        dangerouslySetInnerHTML={{ __html: rendered }}
      />
      {hovered !== undefined && <LineWhy at={hovered} blame={blames.get(hovered.path)} />}
    </div>
  );
}

async function loadDiff(id: string): Promise<{ text: string; truncated: boolean }> {
  try {
    const response = await api.text('GET /api/sessions/:ref/diff', { params: { ref: id } });
    return { text: response.text, truncated: response.header('x-baton-diff-truncated') === '1' };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new ApiError(error.status, error.code, `The diff could not be loaded (HTTP ${error.status}).`);
  }
}
