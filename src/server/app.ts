/**
 * The supervisor's HTTP API (hono). Loopback only, bearer token required, Host and Origin
 * checked against DNS rebinding and cross-site requests. The CLI is a thin client of it.
 */
import { checkAgentName } from '../agents/index.js';
import { readUserConfig } from '../shared/config.js';
import { timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { ZodError } from 'zod';
import { ATTEMPTS } from '../api/attempts.js';
import { CONFLICTS } from '../api/conflicts.js';
import { CONTEXT } from '../api/context.js';
import { ContextService } from '../context/index.js';
import { DAEMON, type DaemonStatus } from '../api/daemon.js';
import { DOCTOR } from '../api/doctor.js';
import { defaultAgent } from '../doctor/index.js';
import { homePaths } from '../shared/paths.js';
import { ENVIRONMENTS } from '../api/environments.js';
import { HISTORY } from '../api/history.js';
import { MCP } from '../api/mcp.js';
import { MERGE } from '../api/merge.js';
import { POLICY } from '../api/policy.js';
import { REVIEW } from '../api/review.js';
import { MAX_BODY_BYTES, type ApiErrorBody } from '../api/index.js';
import { SESSIONS } from '../api/sessions.js';
import { TASKS } from '../api/tasks.js';
import { WATCHDOG } from '../api/watchdog.js';
import { SYNC } from '../api/sync.js';
import { WORKERS, type WorkersView } from '../api/workers.js';
import { PROVENANCE } from '../api/provenance.js';
import { WORKSPACE } from '../api/workspace.js';
import { BatonError, DiskFullError, errorMessage, formatIssues, isDiskFull } from '../shared/errors.js';
import { MergeService, onlyHere } from '../merge/index.js';
import { McpService, MCP_HTTP_PATH, checkCredential, isSessionCredential } from '../mcp/index.js';
import type { Db } from '../store/db.js';
import { ApprovalService } from '../approvals/index.js';
import { PolicyService } from '../policy/index.js';
import { sqliteSettings, type AllowRuleRow } from '../settings/index.js';
import type { AttemptService } from '../attempts/index.js';
import { createLogger } from '../shared/log.js';
import { ConflictRadar } from '../radar/index.js';
import type { SessionManager } from '../sessions/index.js';
import type { BrowserAuth } from './web-auth.js';
import { bodyLimit } from './body-limit.js';
import { authorizeSession } from './session-callers.js';
import { mountMcpHttp } from './mcp-http.js';
import { attemptHandlers } from './routes/attempts.js';
import { conflictHandlers } from './routes/conflicts.js';
import { contextHandlers } from './routes/context.js';
import { daemonHandlers } from './routes/daemon.js';
import { doctorHandlers } from './routes/doctor.js';
import { environmentHandlers } from './routes/environments.js';
import { historyHandlers } from './routes/history.js';
import { mcpHandlers } from './routes/mcp.js';
import { mergeHandlers } from './routes/merge.js';
import { policyHandlers } from './routes/policy.js';
import { mount } from './routes/mount.js';
import { sessionHandlers, type Placing } from './routes/sessions.js';
import { workspaceHandlers } from './routes/workspace.js';
import { reviewHandlers } from './routes/review.js';
import { routineHandlers } from './routes/routines.js';
import { ROUTINES } from '../api/routines.js';
import type { RoutineService } from '../routines/index.js';
import { taskHandlers } from './routes/tasks.js';
import { createTasks, type TaskService } from '../tasks/index.js';
import { watchdogHandlers } from './routes/watchdog.js';
import { syncHandlers } from './routes/sync.js';
import { provenanceHandlers } from './routes/provenance.js';
import { workerHandlers } from './routes/workers.js';
import type { PeerSessions } from '../cluster/index.js';
import type { SyncService } from '../sync/index.js';
import type { ProvenanceService } from '../provenance/index.js';
import type { Watchdog } from '../watchdog/index.js';
import type { ReviewService } from '../review/index.js';
import { mountWeb } from './web-routes.js';
import { TABLES } from './openapi.js';
import type { EndpointSpec } from '../api/endpoint.js';

const log = createLogger('http');

/** Routes the endpoint tables mark `tokenOnly`: a browser's cookie never reaches them. */
const TOKEN_ONLY = new Set(
  Object.entries(TABLES).flatMap(([route, spec]) =>
    (spec as EndpointSpec).tokenOnly === true ? [route] : [],
  ),
);

export interface AppOptions {
  manager: SessionManager;
  token: string;
  /** The port we listen on, for the Host check; read lazily since it is known only after listen. */
  port: () => number;
  status: () => DaemonStatus;
  /** How far the supervisor's start has come (decision 169); ready when not given. */
  phase?: () => DaemonStatus['phase'];
  requestShutdown: () => void;
  /** `daemon stop --all`: ends every session host first. */
  endHosts?: () => Promise<void>;
  /** The conflict radar the supervisor runs; without it, a passive one answers (a pass per request). */
  radar?: ConflictRadar;
  /** Browser access (login codes, cookie sessions) and the web UI's routes; without it, the API takes the token only. */
  browserAuth?: BrowserAuth;
  /** The merge queue; made on first use (in the status's home) when not given. */
  merges?: MergeService;
  /** Best-of groups and fan-outs (src/attempts); without it, their endpoints answer that they are off. */
  attempts?: AttemptService;
  /** Coupled groups and combined reviews (src/review); without it, the review endpoints answer that it is off. */
  review?: ReviewService;
  /** Scheduled and triggered agents (src/routines); without it, the routine endpoints answer that they are off. */
  routines?: RoutineService;
  /**
   * Tasks (decision 71, "Tasks are their own domain beside sessions"); made on the manager's bus when
   * not given (its watch then not started).
   */
  tasks?: TaskService;
  /** What agents ask through Baton's MCP server; made on `db` when not given. */
  mcp?: McpService;
  /** The store, for the MCP service's search and records when `mcp` is not given. */
  db?: Db;
  /** The gate's rules (src/policy); made over `approvals` when not given. */
  policy?: PolicyService<AllowRuleRow>;
  /** Allow rules and answering approvals (src/approvals); made over the manager's store when not given. */
  approvals?: ApprovalService;
  /** Budgets, alerts and cost (src/watchdog); without it, those endpoints answer that it is off. */
  watchdog?: Watchdog;
  /** Transcripts, search, handoff and import (src/context); made on the manager's database when not given. */
  context?: ContextService;
  /** Pushes of sessions' work to the shared remote (src/sync); without it, those endpoints answer that it is off. */
  sync?: SyncService;
  /** Which session's turn wrote each line (src/provenance); without it, those endpoints answer that it is off. */
  provenance?: ProvenanceService;
  /** The machines serving the workspace (src/server/cluster.ts); without it, that endpoint answers that it is off. */
  workers?: () => Promise<WorkersView>;
  /**
   * The other machines' sessions (decision 127, "A shared workspace in the supervisor"), from the
   * peers port (decision 320); none on one machine.
   */
  peers?: PeerSessions;
  /** Where a dispatch may go: this machine's name, and other machines when the workspace is shared. */
  placing?: Placing;
}

export function createApp(options: AppOptions): Hono {
  const { manager } = options;
  // The state folder, which never changes: the status that says it also lists every session and
  // measures their memory, which every dispatch naming no agent paid for (decision 416).
  let home: string | undefined;
  const homeOf = (): string => (home ??= options.status().home);
  const app = new Hono();

  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) =>
    c.json<ApiErrorBody>(
      { error: { code: 'not_found', message: `No route ${c.req.method} ${c.req.path}` } },
      404,
    ),
  );

  // First, before any answer (a refusal too): a body no one reads holds its connection (decision
  // 197), and the request the handlers and the caller checks below know is the one it leaves.
  app.use(
    '*',
    bodyLimit(MAX_BODY_BYTES, {
      limitFor: (c) => (isRoutineHook(c.req) ? HOOK_BODY_BYTES : undefined),
      mayRead: (c) => mayPass(c.req, options),
    }),
  );
  app.use('*', async (c, next) => {
    const host = c.req.header('host') ?? '';
    const allowedHosts = [`127.0.0.1:${options.port()}`, `localhost:${options.port()}`];
    if (!allowedHosts.includes(host)) return refuse(403, 'forbidden', `Host "${host}" is not allowed`);
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`)) {
      return refuse(403, 'forbidden', `Origin "${origin}" is not allowed`);
    }
    // Baton's MCP endpoint takes a session's own credential only, and checks it itself (mcp-http.ts).
    if (c.req.path === MCP_HTTP_PATH) return next();
    // The web UI's pages and login are public; its API calls authenticate by cookie (web-auth.ts).
    if (options.browserAuth !== undefined && !c.req.path.startsWith('/api/')) return next();
    // A routine's HTTP trigger carries the routine's own token, checked by its handler, never the workspace's.
    // Checked here, from the headers, as for every other call: its body was not read unless it holds (decision 331).
    if (isRoutineHook(c.req))
      return mayPass(c.req, options)
        ? next()
        : refuse(403, 'forbidden', 'Unknown routine or wrong routine token.');
    const authorization = c.req.header('authorization');
    const byToken = tokenMatches(authorization, options.token);
    // A session's own credential (its MCP server): scoped to what that session may do (session-callers.ts).
    if (
      !byToken &&
      authorization?.startsWith('Bearer ') === true &&
      authorizeSession(c.req.raw, authorization.slice('Bearer '.length), homeOf(), manager) !== undefined
    ) {
      return next();
    }
    if (!byToken && !(options.browserAuth?.allows(c.req.raw) ?? false)) {
      return refuse(401, 'unauthorized', 'Missing or wrong token. The CLI reads it from $BATON_HOME/token.');
    }
    if (!byToken && TOKEN_ONLY.has(`${c.req.method} ${c.req.path}`)) {
      return refuse(
        403,
        'forbidden',
        'This needs the token, not a browser login: run it with the `baton` command line.',
      );
    }
    await next();
  });

  mount(app, DAEMON, daemonHandlers(options));
  mount(app, DOCTOR, doctorHandlers(manager, options.status));
  const approvals =
    options.approvals ?? new ApprovalService(manager, sqliteSettings(manager.db).allowRules, manager.bus);
  const policy = options.policy ?? new PolicyService(approvals);
  const watchdog = options.watchdog;
  const warnings =
    watchdog === undefined
      ? undefined
      : (session: { agent: string }) => watchdog.budgets.dispatchWarnings(session).map((w) => w.text);
  mount(
    app,
    SESSIONS,
    sessionHandlers(manager, approvals, warnings, options.peers, options.placing, () =>
      defaultAgent(homePaths(homeOf()).config, process.env),
    ),
  );
  mount(app, HISTORY, historyHandlers(manager, options.peers));
  mount(app, WORKSPACE, workspaceHandlers(manager.bus));
  mount(
    app,
    CONFLICTS,
    conflictHandlers(options.radar ?? new ConflictRadar({ sessions: manager, bus: manager.bus })),
  );
  let merges = options.merges;
  mount(
    app,
    MERGE,
    mergeHandlers(
      () =>
        (merges ??= new MergeService({
          home: homeOf(),
          sessions: onlyHere(manager),
          bus: manager.bus,
          db: manager.search.db,
          env: process.env,
        })),
    ),
  );
  mount(app, ATTEMPTS, attemptHandlers(options.attempts, warnings));
  mount(app, REVIEW, reviewHandlers(options.review));
  mount(app, ENVIRONMENTS, environmentHandlers(manager));
  mount(
    app,
    ROUTINES,
    routineHandlers(
      options.routines,
      () => defaultAgent(homePaths(homeOf()).config, process.env),
      (name) => checkAgentName(name, readUserConfig(homePaths(homeOf()).config).agents),
    ),
  );
  mount(
    app,
    TASKS,
    taskHandlers(options.tasks ?? createTasks(manager.db, manager.bus, manager).service, manager, () =>
      defaultAgent(homePaths(homeOf()).config, process.env),
    ),
  );
  mount(
    app,
    MCP,
    mcpHandlers(options.mcp ?? new McpService({ db: options.db, sessions: manager, bus: manager.bus })),
  );
  mount(app, POLICY, policyHandlers(policy, approvals));
  mount(app, WATCHDOG, watchdogHandlers(options.watchdog));
  const context =
    options.context ??
    new ContextService({
      db: manager.search.db,
      search: manager.search,
      sessions: manager,
      bus: manager.bus,
    });
  mount(app, CONTEXT, contextHandlers(context, manager));
  mount(app, SYNC, syncHandlers(options.sync));
  mount(app, WORKERS, workerHandlers(options.workers));
  mount(app, PROVENANCE, provenanceHandlers(options.provenance));

  mountMcpHttp(app, { manager, home: homeOf, port: options.port });

  // Last: the web routes end with the UI's catch-all.
  if (options.browserAuth !== undefined)
    mountWeb(app, {
      manager,
      auth: options.browserAuth,
      port: options.port,
      ...(options.peers === undefined ? {} : { peers: options.peers }),
    });
  return app;
}

/** A routine's hook takes a few strings (`detail`): its body is capped well below the API's (decision 331). */
const HOOK_BODY_BYTES = 64 * 1024;

/** What the checks before the body read of a request: its line and headers. */
interface Head {
  method: string;
  path: string;
  raw: Request;
  header(name: string): string | undefined;
}

function isRoutineHook(req: Head): boolean {
  return req.method === 'POST' && req.path.startsWith('/api/hooks/routines/');
}

/**
 * Whether a request carries what could pass the guard, judged from its headers before its body is
 * read (decision 331): the token, a session credential that holds, a live login cookie, or — for
 * a routine's hook — that routine's own token. The guard below still decides; this only keeps a
 * body no one may send from being held. Pages outside the API are public (the login among them).
 */
function mayPass(req: Head, options: AppOptions): boolean {
  const authorization = req.header('authorization');
  const bearer =
    authorization?.startsWith('Bearer ') === true ? authorization.slice('Bearer '.length) : undefined;
  if (isRoutineHook(req)) {
    const routines = options.routines;
    return (
      routines === undefined || routines.tokenMatches(decodedSegment(req.path.split('/')[4] ?? ''), bearer)
    );
  }
  if (options.browserAuth !== undefined && !req.path.startsWith('/api/')) return true;
  if (tokenMatches(authorization, options.token)) return true;
  if (bearer !== undefined && isSessionCredential(bearer))
    return checkCredential(options.status().home, bearer).ok;
  return options.browserAuth?.hasLiveCookie(req.raw) ?? false;
}

/** A path segment as the router reads it; one that is not valid percent-encoding names no routine. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function refuse(status: 401 | 403, code: string, message: string): Response {
  const body: ApiErrorBody = { error: { code, message } };
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** The one place where errors become HTTP responses. */
function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof ZodError) {
    const message = formatIssues(error.issues);
    return c.json<ApiErrorBody>(
      { error: { code: 'invalid_input', message: `Invalid request: ${message}` } },
      400,
    );
  }
  // A full disk (SQLite's or the OS's word for it) is the machine's state, not a bug: say so.
  if (isDiskFull(error) && !(error instanceof DiskFullError)) {
    const full = new DiskFullError(`answering ${c.req.method} ${c.req.path}`, errorMessage(error));
    log.warn('disk full', { method: c.req.method, path: c.req.path, error: errorMessage(error) });
    return c.json<ApiErrorBody>({ error: { code: full.code, message: full.message, data: full.data } }, 507);
  }
  if (error instanceof BatonError) {
    return c.json<ApiErrorBody>(
      { error: { code: error.code, message: error.message, data: error.data } },
      error.httpStatus as 400,
    );
  }
  // A client that hung up mid-request (its body cut short) is not the supervisor's error.
  if (c.req.raw.signal.aborted) {
    log.info('request aborted by the client', { method: c.req.method, path: c.req.path });
    return c.body(null, 400);
  }
  log.error('unhandled error', {
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return c.json<ApiErrorBody>(
    { error: { code: 'internal', message: 'Internal error; see supervisor.log' } },
    500,
  );
}
