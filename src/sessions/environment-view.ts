/** `baton env`: what a session's environment is, read from its plan, its setup log and its worktree. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EnvironmentView } from '../api/environments.js';
import { diskUse, readPlan } from '../environments/index.js';
import { sessionPaths } from '../shared/paths.js';
import type { SessionWithProject } from '../store/sessions.js';
import { SETUP_LOG } from './host-prepare.js';

const LOG_TAIL = 8_000;

export function environmentView(home: string, session: SessionWithProject): EnvironmentView {
  const dir = sessionPaths(home, session.id).dir;
  const plan = readPlan(dir, session.worktree);
  const logPath = join(dir, SETUP_LOG);
  const log = existsSync(logPath) ? readFileSync(logPath, 'utf8').slice(-LOG_TAIL) : null;
  return {
    session: session.name,
    state: session.state,
    worktree: session.worktree,
    ports: plan.ports,
    env: plan.env,
    settingSources: plan.settingSources,
    setup: {
      steps: plan.copy.length + plan.share.length + plan.setup.length + (plan.worktreeInclude ? 1 : 0),
      log,
      logPath,
    },
    disk: existsSync(session.worktree) ? diskUse(session.worktree) : null,
  };
}
