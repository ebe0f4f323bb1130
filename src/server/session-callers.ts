/**
 * Requests made with a session's own credential (the MCP server Baton attaches to a session):
 * checked against the session's credential file, then held to what the endpoint tables allow a
 * session — `read` anything, `own` only as itself (decision 95). The rest is refused.
 */
import type { Context } from 'hono';
import type { EndpointSpec } from '../api/endpoint.js';
import { checkCredential, isSessionCredential } from '../mcp/index.js';
import { BatonError, ForbiddenError, UnauthorizedError } from '../shared/errors.js';
import type { SessionManager } from '../sessions/index.js';
import { TABLES } from './openapi.js';

const callers = new WeakMap<Request, string>();

/** The session whose credential made this request; undefined for the token's holder or a browser. */
export function sessionCallerOf(c: Context): string | undefined {
  return callers.get(c.req.raw);
}

interface RouteMatcher {
  method: string;
  pattern: RegExp;
  spec: EndpointSpec;
}

const ROUTES: RouteMatcher[] = Object.entries(TABLES).map(([route, spec]) => {
  const [method, path] = route.split(' ') as [string, string];
  const pattern = new RegExp(`^${path.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`);
  return { method, pattern, spec };
});

/**
 * For a bearer value shaped as a session credential: the caller's session id once the credential
 * holds and the endpoint allows it; throws a named error saying why not. Undefined for any other value.
 */
export function authorizeSession(
  request: Request,
  bearer: string,
  home: string,
  manager: SessionManager,
): string | undefined {
  if (!isSessionCredential(bearer)) return undefined;
  const check = checkCredential(home, bearer);
  if (!check.ok) throw new UnauthorizedError(credentialRefusal(check.sessionId, manager));
  const sessionId = check.sessionId;
  const method = request.method;
  const path = new URL(request.url).pathname;
  const route = ROUTES.find((r) => r.method === method && r.pattern.test(path));
  const access = route?.spec.sessions;
  if (route === undefined || access === undefined) {
    throw new ForbiddenError(
      `A session's Baton credential may not call ${method} ${path}${route === undefined ? '' : ` (${route.spec.summary.toLowerCase()})`}: that is for the user.`,
    );
  }
  const ref = route.pattern.exec(path)?.groups?.ref;
  if (access === 'own' && ref !== undefined) {
    const target = manager.resolve(decodeURIComponent(ref));
    if (target.id !== sessionId)
      throw new ForbiddenError(
        `A session may act only on itself through Baton; ${target.name} is another session.`,
      );
  }
  callers.set(request, sessionId);
  return sessionId;
}

/** Why a session credential that does not hold was refused, in the user's words. */
export function credentialRefusal(sessionId: string | undefined, manager: SessionManager): string {
  if (sessionId === undefined) return 'The session credential is malformed.';
  let session;
  try {
    session = manager.resolve(sessionId);
  } catch (error) {
    if (error instanceof BatonError && error.code === 'not_found')
      return `The session credential names session ${sessionId}, which Baton does not know (removed?).`;
    throw error;
  }
  if (session.state === 'completed')
    return `Session ${session.name} has ended (completed): its Baton credential was revoked with it.`;
  if (!manager.isRunning(session)) {
    return `Session ${session.name} is not running (it is ${session.state.replace(/_/g, ' ')}): its Baton credential was revoked when its agent stopped; the next run of the session gets a new one.`;
  }
  return `This is not session ${session.name}'s current Baton credential (it was revoked when the session's agent was started again).`;
}
