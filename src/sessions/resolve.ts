/** Finds a session by id, name, `project/name` or unique id prefix — preferring the caller's own project. */
import { AmbiguousSessionError, InvalidInputError, SessionNotFoundError } from '../shared/errors.js';
import type { SessionWithProject } from '../store/sessions.js';

export function resolveSessionRef(
  sessions: SessionWithProject[],
  ref: string,
  cwd?: string,
): SessionWithProject {
  if (ref.trim() === '') throw new InvalidInputError('No session given.');
  const byId = sessions.find((s) => s.id === ref);
  if (byId) return byId;

  const named = sessions.filter((s) => s.name === ref);
  if (named.length === 1 && named[0]) return named[0];
  if (named.length > 1) {
    const local =
      cwd === undefined
        ? []
        : named.filter((s) => isInside(cwd, s.project_root) || isInside(cwd, s.worktree));
    if (local.length === 1 && local[0]) return local[0];
    throw new AmbiguousSessionError(
      ref,
      named.map((s) => `${s.project_name}/${s.name} (${s.id})`),
    );
  }

  // `project/name`, as `baton ls` shows sessions of several projects.
  const slash = ref.indexOf('/');
  if (slash > 0) {
    const qualified = sessions.filter(
      (s) => s.project_name === ref.slice(0, slash) && s.name === ref.slice(slash + 1),
    );
    if (qualified.length === 1 && qualified[0]) return qualified[0];
  }

  const prefixed = sessions.filter((s) => s.id.startsWith(ref));
  if (prefixed.length === 1 && prefixed[0]) return prefixed[0];
  if (prefixed.length > 1)
    throw new AmbiguousSessionError(
      ref,
      prefixed.map((s) => `${s.name} (${s.id})`),
    );
  throw new SessionNotFoundError(ref);
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : root + '/');
}
