/** A session's row as the store takes it, for tests that seed the store directly instead of dispatching. */
import type { NewSession } from '../../src/store/sessions.js';

/** `id`, `project_id` and `name` given; the rest a scripted session on `baton/<name>` off `main` at a zero commit. */
export function sessionRow(
  fields: Pick<NewSession, 'id' | 'project_id' | 'name'> & Partial<NewSession>,
): NewSession {
  return {
    agent: 'scripted',
    prompt: 'p',
    model: null,
    permission_mode: 'default',
    options_json: '{}',
    branch: `baton/${fields.name}`,
    base_ref: 'main',
    base_commit: '0'.repeat(40),
    worktree: `/w/${fields.name}`,
    ...fields,
  };
}
