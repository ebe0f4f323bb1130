/** Every table of the API, by domain. Clients import this with `import type` only. */
import type { ATTEMPTS } from './attempts.js';
import type { CONFLICTS } from './conflicts.js';
import type { CONTEXT } from './context.js';
import type { DAEMON } from './daemon.js';
import type { DOCTOR } from './doctor.js';
import type { ENVIRONMENTS } from './environments.js';
import type { HISTORY } from './history.js';
import type { MCP } from './mcp.js';
import type { MERGE } from './merge.js';
import type { POLICY } from './policy.js';
import type { PROVENANCE } from './provenance.js';
import type { REVIEW } from './review.js';
import type { ROUTINES } from './routines.js';
import type { TASKS } from './tasks.js';
import type { SESSIONS } from './sessions.js';
import type { SYNC } from './sync.js';
import type { UI } from './ui.js';
import type { WATCHDOG } from './watchdog.js';
import type { WORKERS } from './workers.js';
import type { WORKSPACE } from './workspace.js';

export type Endpoints = typeof DAEMON &
  typeof DOCTOR &
  typeof SESSIONS &
  typeof HISTORY &
  typeof UI &
  typeof WORKSPACE &
  typeof CONFLICTS &
  typeof MERGE &
  typeof REVIEW &
  typeof ENVIRONMENTS &
  typeof ROUTINES &
  typeof TASKS &
  typeof MCP &
  typeof POLICY &
  typeof WATCHDOG &
  typeof CONTEXT &
  typeof ATTEMPTS &
  typeof SYNC &
  typeof WORKERS &
  typeof PROVENANCE;
export type Route = keyof Endpoints;
