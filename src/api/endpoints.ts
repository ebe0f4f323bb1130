/** Every table of the API, by domain. Clients import this with `import type` only. */
import type { DAEMON } from './daemon.js';
import type { ENVIRONMENTS } from './environments.js';
import type { HISTORY } from './history.js';
import type { SESSIONS } from './sessions.js';
import type { UI } from './ui.js';
import type { WORKSPACE } from './workspace.js';

export type Endpoints = typeof DAEMON & typeof SESSIONS & typeof HISTORY & typeof UI & typeof WORKSPACE & typeof ENVIRONMENTS;
export type Route = keyof Endpoints;
