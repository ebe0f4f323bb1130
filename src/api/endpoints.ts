/** Every table of the API, by domain. Clients import this with `import type` only. */
import type { ATTEMPTS } from './attempts.js';
import type { CONFLICTS } from './conflicts.js';
import type { DAEMON } from './daemon.js';
import type { ENVIRONMENTS } from './environments.js';
import type { HISTORY } from './history.js';
import type { MERGE } from './merge.js';
import type { REVIEW } from './review.js';
import type { SESSIONS } from './sessions.js';
import type { UI } from './ui.js';
import type { WORKSPACE } from './workspace.js';

export type Endpoints = typeof DAEMON & typeof SESSIONS & typeof HISTORY & typeof UI & typeof WORKSPACE & typeof CONFLICTS & typeof MERGE & typeof REVIEW & typeof ENVIRONMENTS & typeof ATTEMPTS;
export type Route = keyof Endpoints;
