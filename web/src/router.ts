/** A tiny history router: the dashboard's few kinds of page are not worth a dependency. */
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'board' }
  | { page: 'inbox' }
  | { page: 'dispatch' }
  | { page: 'session'; id: string }
  | { page: 'review' }
  | { page: 'landing' }
  | { page: 'routines' }
  | { page: 'cost' }
  | { page: 'search' }
  | { page: 'tasks' }
  | { page: 'attempts' }
  | { page: 'attempt'; id: string }
  | { page: 'fanout'; id: string }
  | { page: 'review-group'; project: string; group: string };

function subscribe(listener: () => void): () => void {
  addEventListener('popstate', listener);
  return () => removeEventListener('popstate', listener);
}

/** The path being rendered on the server, where there is no `location` (set by web/src/render.tsx). */
let serverPath = '/';
export function setServerPath(path: string): void {
  serverPath = path;
}

export function useRoute(): Route {
  const path = useSyncExternalStore(
    subscribe,
    () => location.pathname,
    () => (typeof location === 'undefined' ? serverPath : location.pathname),
  );
  return parse(path);
}

export function parse(path: string): Route {
  if (path === '/inbox') return { page: 'inbox' };
  if (path === '/dispatch') return { page: 'dispatch' };
  if (path === '/review') return { page: 'review' };
  if (path === '/landing') return { page: 'landing' };
  if (path === '/routines') return { page: 'routines' };
  if (path === '/cost') return { page: 'cost' };
  if (path === '/search') return { page: 'search' };
  if (path === '/tasks') return { page: 'tasks' };
  if (path === '/attempts') return { page: 'attempts' };
  const attempt = /^\/(attempts|fanouts)\/([^/]+)$/.exec(path);
  if (attempt?.[2] !== undefined)
    return { page: attempt[1] === 'attempts' ? 'attempt' : 'fanout', id: decodeURIComponent(attempt[2]) };
  const group = /^\/review\/([^/]+)\/([^/]+)$/.exec(path);
  if (group?.[1] !== undefined && group[2] !== undefined)
    return {
      page: 'review-group',
      project: decodeURIComponent(group[1]),
      group: decodeURIComponent(group[2]),
    };
  const session = /^\/s\/([^/]+)$/.exec(path);
  if (session?.[1] !== undefined) return { page: 'session', id: decodeURIComponent(session[1]) };
  return { page: 'board' };
}

export function navigate(path: string): void {
  if (location.pathname + location.search === path) return;
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}
