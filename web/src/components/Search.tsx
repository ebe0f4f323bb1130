/**
 * Search every transcript: a box, ranked hits with their snippets, each opening its session at
 * the event that matched (`/s/<id>?at=<seq>`). Loaded when the page opens, never with the board.
 */
import { useEffect, useState } from 'react';
import type { SearchResult } from '../../../src/api/context.js';
import { api, errorText } from '../api.js';
import { ago } from '../format.js';
import { navigate } from '../router.js';

type Hit = SearchResult['hits'][number];

export function Search() {
  const [text, setText] = useState('');
  const [result, setResult] = useState<SearchResult | undefined>();
  const [error, setError] = useState<string | undefined>();

  // Search as you type, a moment after the last key.
  useEffect(() => {
    const words = text.trim();
    if (words === '') {
      setResult(undefined);
      setError(undefined);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      api.call('GET /api/search', { query: { q: words, limit: 50 } }).then(
        (found) => {
          if (stale) return;
          setResult(found);
          setError(undefined);
        },
        (e: unknown) => !stale && setError(errorText(e)),
      );
    }, 150);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [text]);

  return (
    <div className="search-page" data-testid="search-page">
      <div className="review-head">
        <h1>Search</h1>
        <span className="muted">
          Every transcript: messages, reasoning, tool input and output, decisions and notes.
        </span>
      </div>
      <input
        className="search-box"
        data-testid="search-box"
        type="search"
        autoFocus
        placeholder='words, "a phrase", AND, OR, NOT'
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
      />
      {error !== undefined && (
        <div className="error-text" data-testid="search-error">
          {error}
        </div>
      )}
      {result !== undefined && error === undefined && (
        <div className="search-hits" data-testid="search-hits">
          {result.hits.length === 0 ? (
            <div className="muted">Nothing found.</div>
          ) : (
            result.hits.map((hit, i) => (
              <HitRow key={`${hit.sessionId ?? hit.docId ?? ''}-${hit.seq ?? i}`} hit={hit} />
            ))
          )}
        </div>
      )}
    </div>
  );
}

function HitRow({ hit }: { hit: Hit }) {
  const target =
    hit.source === 'event' && hit.sessionId !== null && hit.seq !== null
      ? `/s/${encodeURIComponent(hit.sessionId)}?at=${hit.seq}`
      : undefined;
  const title = hit.sessionName ?? hit.docId ?? '';
  return (
    <div className="search-hit" data-testid="search-hit">
      <div className="search-hit-head">
        {target === undefined ? (
          <span className="search-hit-title">{title}</span>
        ) : (
          <a
            className="search-hit-title"
            href={target}
            onClick={(e) => {
              e.preventDefault();
              navigate(target);
            }}
          >
            {title}
          </a>
        )}
        <span className="muted">
          {hit.kind.replace('_', ' ')} · {hit.agent ?? hit.source}
          {hit.source === 'imported' ? ' (imported)' : ''} · {ago(hit.ts)}
        </span>
      </div>
      <div className="search-snippet">{marked(hit.snippet)}</div>
    </div>
  );
}

/** The snippet with its «marked» words as <mark>, as text nodes only (nothing parsed as HTML). */
function marked(snippet: string) {
  return snippet
    .split(/(«[^»]*»)/)
    .map((part, i) =>
      part.startsWith('«') && part.endsWith('»') ? (
        <mark key={i}>{part.slice(1, -1)}</mark>
      ) : (
        <span key={i}>{part}</span>
      ),
    );
}
