import { describe, expect, it } from 'vitest';
import type { SessionWithProject } from '../store/sessions.js';
import { resolveSessionRef } from './resolve.js';

const session = (id: string, name: string, project: string): SessionWithProject =>
  ({
    id,
    name,
    project_name: project,
    project_root: `/code/${project}`,
    worktree: `/state/worktrees/${project}/${name}`,
  }) as SessionWithProject;

describe('resolveSessionRef', () => {
  const sessions = [
    session('aaa111', 'long', 'repo'),
    session('bbb222', 'long', 'repo2'),
    session('ccc333', 'other', 'repo2'),
  ];

  it('takes project/name as ls shows it when a name is in several projects', () => {
    expect(resolveSessionRef(sessions, 'repo2/long').id).toBe('bbb222');
    expect(resolveSessionRef(sessions, 'repo/long').id).toBe('aaa111');
    expect(() => resolveSessionRef(sessions, 'long')).toThrow(
      /repo\/long \(aaa111\).*repo2\/long \(bbb222\)/,
    );
    expect(() => resolveSessionRef(sessions, 'repo3/long')).toThrow(/No session/i);
  });

  it('prefers the caller’s project for a bare name, and takes an id prefix', () => {
    expect(resolveSessionRef(sessions, 'long', '/code/repo2/src').id).toBe('bbb222');
    expect(resolveSessionRef(sessions, 'ccc').name).toBe('other');
  });
});
