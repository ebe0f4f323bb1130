/**
 * The CLI's connection to the supervisor: finds it through `supervisor.json`, starts it on demand
 * (detached, logging to a file), and speaks its HTTP API with the token over node:http (Node's
 * fetch would load undici, tens of milliseconds on every command). The typed calls themselves are
 * the shared client's (src/api/client.ts); this module loads no schema and no zod.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import {
  ApiClient,
  KEEP_ALIVE,
  requestLine,
  streamMessage,
  type ErrorMapper,
  type Transport,
} from '../api/client.js';
import type { BatonEvent } from '../events/index.js';
import type { RelayedWorkspaceEvent } from '../events/workspace-relayed.js';
import type { WorkspaceEvent } from '../events/workspace.js';
import {
  BatonError,
  InvalidInputError,
  SupervisorUnreachableError,
  SUPERVISOR_EXIT_ALREADY_RUNNING,
  UnauthorizedError,
  type ErrorCode,
} from '../shared/errors.js';
import { homePaths, type HomePaths } from '../shared/paths.js';
import { isProcessAlive } from '../shared/process.js';
import { VERSION } from '../shared/version.js';

/** How long a supervisor that won a start race may take to listen (it listens before it catches up). */
const START_TIMEOUT_MS = 15_000;

interface SupervisorFile {
  pid: number;
  port: number;
}

/** The typed API client on node:http, plus the event stream that `logs -f` and `attach` follow. */
export class SupervisorClient extends ApiClient {
  private readonly headers: Record<string, string>;
  /** The supervisor's version, as its health check said (unknown until then). */
  version: string | undefined;

  constructor(
    readonly baseUrl: string,
    token: string,
    cwd: string,
    toError: ErrorMapper = toBatonError,
  ) {
    const headers = { authorization: `Bearer ${token}`, 'x-baton-cwd': cwd };
    super(httpTransport(baseUrl, headers), toError);
    this.headers = headers;
  }

  /**
   * Replays a session's events after `after`, then follows live until `signal` aborts or the
   * session ends (completed or removed), which the answer says.
   */
  async follow(
    ref: string,
    after: number,
    onEvent: (event: BatonEvent) => void,
    signal: AbortSignal,
    onLive?: () => void,
  ): Promise<'completed' | 'removed' | undefined> {
    const { path } = requestLine('GET /api/sessions/:ref/events', {
      params: { ref },
      query: { follow: true, after },
    });
    let ended: 'completed' | 'removed' | undefined;
    await this.stream(path, signal, (message) => {
      if (message.event === 'event')
        onEvent(streamMessage('GET /api/sessions/:ref/events', 'event', message.data));
      else if (message.event === 'live') onLive?.();
      else if (message.event === 'ended')
        ended = streamMessage('GET /api/sessions/:ref/events', 'ended', message.data).reason;
      return ended !== undefined;
    });
    return ended;
  }

  /**
   * Workspace events after `after` (replayed), then live ones, until `signal` aborts. With
   * `onRelayed`, also the other machines' events of a shared workspace (one sequence with these).
   */
  followWorkspace(
    after: number,
    onEvent: (event: WorkspaceEvent) => void,
    signal: AbortSignal,
    onRelayed?: (event: RelayedWorkspaceEvent) => void,
  ): Promise<void> {
    const { path } = requestLine('GET /api/stream', { query: { after, sessions: '0' } });
    return this.stream(path, signal, (message) => {
      if (message.event === 'workspace') onEvent(streamMessage('GET /api/stream', 'workspace', message.data));
      else if (message.event === 'relayed' && onRelayed !== undefined)
        onRelayed(streamMessage('GET /api/stream', 'relayed', message.data));
      return false;
    });
  }

  /** Reads SSE messages of `path` until `signal` aborts or `onMessage` answers true (the stream has said its last). */
  async stream(
    path: string,
    signal: AbortSignal,
    onMessage: (message: { event: string; data: string }) => boolean,
  ): Promise<void> {
    let response: IncomingMessage;
    try {
      response = await open(this.baseUrl + path, this.headers, signal);
    } catch (error) {
      if (signal.aborted) return;
      throw new SupervisorUnreachableError(`Cannot reach the supervisor (${(error as Error).message}).`);
    }
    if (response.statusCode !== 200)
      throw toBatonError(response.statusCode ?? 0, parseError(await readAll(response)));
    response.setEncoding('utf8');
    let buffer = '';
    try {
      for await (const chunk of response) {
        buffer += chunk as string;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const message = parseSse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (onMessage(message)) {
            response.destroy();
            return;
          }
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      throw new SupervisorUnreachableError(`The event stream was cut (${(error as Error).message}).`);
    }
    if (!signal.aborted) throw new SupervisorUnreachableError('The supervisor closed the event stream.');
  }
}

/**
 * The connections of the CLI and of every SupervisorClient: kept alive between calls, and let go
 * after `KEEP_ALIVE.clientIdleMs` idle, long before the server would close them (decision 171).
 */
export const apiAgent = new Agent({ keepAlive: true, timeout: KEEP_ALIVE.clientIdleMs });

function httpTransport(baseUrl: string, headers: Record<string, string>): Transport {
  return ({ method, path, body, timeoutMs }) =>
    new Promise((resolve, reject) => {
      const unreachable = (error: Error): void => {
        reject(
          new SupervisorUnreachableError(
            `Cannot reach the supervisor at ${baseUrl} (${error.message}). Try \`baton daemon status\`.`,
          ),
        );
      };
      const req = request(
        baseUrl + path,
        {
          method,
          agent: apiAgent,
          headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        },
        (res) => {
          readAll(res).then((text) => {
            resolve({ status: res.statusCode ?? 0, text, header: (name) => headerValue(res, name) });
          }, unreachable);
        },
      );
      req.on('error', unreachable);
      if (timeoutMs !== undefined)
        req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.end(body);
    });
}

function open(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, signal }, resolve);
    req.on('error', reject);
    req.end();
  });
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

function headerValue(res: IncomingMessage, name: string): string | undefined {
  const value = res.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function parseSse(block: string): { event: string; data: string } {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return { event, data: data.join('\n') };
}

function parseError(text: string): Parameters<ErrorMapper>[1] {
  try {
    return JSON.parse(text) as Parameters<ErrorMapper>[1];
  } catch {
    return undefined;
  }
}

/** Error answers as the CLI's errors: a 401 is the token's fault; the rest carry the API's code and data. */
export const toBatonError: ErrorMapper = (status, body) => {
  if (status === 401) return new UnauthorizedError();
  const code = (body?.error.code ?? 'internal') as ErrorCode;
  return new BatonError(
    code,
    body?.error.message ?? `The supervisor answered HTTP ${status}`,
    body?.error.data ?? {},
  );
};

export interface ConnectOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Start the supervisor when none runs (every command but `daemon status/stop`). */
  autostart: boolean;
}

/** A client for the running supervisor, starting one first if needed. */
export async function connect(options: ConnectOptions): Promise<SupervisorClient> {
  const paths = homePaths(options.home);
  let existing = await tryExisting(paths, options.cwd);
  // Baton was upgraded under a running supervisor: the newer one takes over (decision 169). The
  // old one stops as `daemon stop` does, leaving the hosts running; the new one re-attaches them.
  if (existing !== undefined && options.autostart && isNewer(VERSION, existing.version)) {
    await replaceOlder(existing);
    existing = undefined;
  }
  if (existing !== undefined) return existing;
  if (!options.autostart) throw new SupervisorUnreachableError('The supervisor is not running.');
  await startSupervisor(paths, options.env);
  const started = await waitForSupervisor(paths, options.cwd);
  return started;
}

/** Whether version `a` is newer than `b` (x.y.z, numerically; anything else compares as 0). */
export function isNewer(a: string, b: string | undefined): boolean {
  if (b === undefined) return false;
  const parts = (v: string): number[] =>
    v
      .split(/[.-]/)
      .slice(0, 3)
      .map((n) => Number(n) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

/** Stops an older supervisor (its hosts keep running) and waits until it has gone and let go of the home. */
async function replaceOlder(old: SupervisorClient): Promise<void> {
  const { pid } = await old.call('GET /api/health');
  await old.call('POST /api/daemon/stop', { query: {} });
  for (;;) {
    if (!isProcessAlive(pid)) return;
    // Another process's exit has no event to wait on from here.
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A live supervisor answers its health check in milliseconds; a hung one must not hang every command. */
const HEALTH_TIMEOUT_MS = 5_000;

/** The running supervisor's client, or undefined when none answers. Throws on a wrong token. */
export async function tryExisting(paths: HomePaths, cwd: string): Promise<SupervisorClient | undefined> {
  const info = readSupervisorFile(paths);
  // A supervisor killed with -9 leaves its file behind, and the next one usually takes the same
  // port: with the process gone, whatever answers there is not ours and must not get the token.
  if (info === undefined || !isProcessAlive(info.pid)) return undefined;
  const token = readToken(paths);
  const client = new SupervisorClient(`http://127.0.0.1:${info.port}`, token, cwd);
  try {
    const health = await client.call('GET /api/health', { timeoutMs: HEALTH_TIMEOUT_MS });
    client.version = health.version ?? '0.0.0';
    return client;
  } catch (error) {
    if (error instanceof SupervisorUnreachableError) return undefined;
    throw error;
  }
}

export function readSupervisorFile(paths: HomePaths): SupervisorFile | undefined {
  if (!existsSync(paths.supervisorJson)) return undefined;
  try {
    const info = JSON.parse(readFileSync(paths.supervisorJson, 'utf8')) as SupervisorFile;
    return typeof info.port === 'number' && typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined;
  }
}

function readToken(paths: HomePaths): string {
  try {
    return readFileSync(paths.token, 'utf8').trim();
  } catch {
    throw new UnauthorizedError(`Cannot read the token at ${paths.token}.`);
  }
}

/**
 * The bundled supervisor when the build made one (it starts on less CPU: decision 222, "The
 * supervisor and the host start from bundles"), else the transpiled entry; from the sources (the
 * test runner), the build's.
 */
function supervisorEntry(): string {
  const bundled = fileURLToPath(new URL('../bundle/supervisor.js', import.meta.url));
  const here = fileURLToPath(new URL('../server/main.js', import.meta.url));
  const candidates = [
    bundled,
    bundled.replace(/\/src\/bundle\/supervisor\.js$/, '/dist/bundle/supervisor.js'),
    here,
  ];
  return (
    candidates.find((path) => existsSync(path)) ??
    here.replace(/\/src\/server\/main\.js$/, '/dist/server/main.js')
  );
}

/** The reason a supervisor gave for failing to start, from what it wrote to the log after `offset`. */
function startFailure(log: string, offset: number): string | undefined {
  try {
    const text = readFileSync(log).subarray(offset).toString('utf8');
    const line = text.split('\n').find((l) => l.startsWith('supervisor failed to start: '));
    return line?.slice('supervisor failed to start: '.length).trim();
  } catch {
    return undefined;
  }
}

/** Spawns a detached supervisor and waits for it to say it is ready (or to lose the start race). */
async function startSupervisor(paths: HomePaths, env: NodeJS.ProcessEnv): Promise<void> {
  // Only the first command after a stop gets here; the rest need not load node:child_process.
  const { spawn } = await import('node:child_process');
  let logFd: number;
  try {
    mkdirSync(paths.home, { recursive: true, mode: 0o700 });
    logFd = openSync(paths.log, 'a');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const why =
      code === 'ENOTDIR' || code === 'EEXIST'
        ? 'a file is in the way of that folder'
        : code === 'EACCES' || code === 'EPERM'
          ? 'you may not write there'
          : code;
    throw new InvalidInputError(
      `Baton's state folder ${paths.home} (BATON_HOME) cannot be used: ${why} (${code}). Point BATON_HOME at a folder you own.`,
    );
  }
  // Where this start's own output begins in the log, to quote its reason if it fails.
  const logStart = fstatSync(logFd).size;
  const child = spawn(process.execPath, [supervisorEntry()], {
    detached: true,
    stdio: ['ignore', logFd, logFd, 'ipc'],
    env: { ...env, BATON_HOME: paths.home },
    cwd: paths.home,
  });
  closeSync(logFd);
  // No fixed time: the supervisor says it is ready as soon as it listens (before it catches up,
  // decision 169), or exits saying why. A busy machine makes that slow, never wrong.
  return new Promise((resolve, reject) => {
    child.once('message', () => {
      child.disconnect();
      child.unref();
      resolve();
    });
    child.once('exit', (code) => {
      // Another CLI started one at the same moment: use that one.
      if (code === SUPERVISOR_EXIT_ALREADY_RUNNING) resolve();
      else {
        const reason = startFailure(paths.log, logStart);
        reject(
          new SupervisorUnreachableError(
            `The supervisor could not start${reason === undefined ? ` (exit code ${code})` : `: ${reason.replace(/\.$/, '')}`}. Its log: ${paths.log}`,
          ),
        );
      }
    });
    child.once('error', (error) => {
      reject(new SupervisorUnreachableError(`Cannot start the supervisor: ${error.message}`));
    });
  });
}

/** After a start (ours or a racing one), waits until the supervisor answers. */
async function waitForSupervisor(paths: HomePaths, cwd: string): Promise<SupervisorClient> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    const client = await tryExisting(paths, cwd);
    if (client !== undefined) return client;
    if (performance.now() > deadline)
      throw new SupervisorUnreachableError(`The supervisor did not come up; see ${paths.log}`);
    // The racing supervisor writes supervisor.json once it listens; there is no event to wait on across processes.
    await new Promise((r) => setTimeout(r, 50));
  }
}
