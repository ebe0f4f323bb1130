/**
 * The OpenAPI 3.1 document of the supervisor's API, generated from the endpoint tables that also
 * drive the handlers and type the client, so it cannot drift from them. Every schema a domain
 * module exports by name becomes a named component; others are inlined.
 */
import { z } from 'zod';
import * as attempts from '../api/attempts.js';
import * as conflicts from '../api/conflicts.js';
import * as context from '../api/context.js';
import * as daemon from '../api/daemon.js';
import * as doctor from '../api/doctor.js';
import * as environments from '../api/environments.js';
import type { EndpointSpec } from '../api/endpoint.js';
import * as history from '../api/history.js';
import * as mcp from '../api/mcp.js';
import * as merge from '../api/merge.js';
import * as policy from '../api/policy.js';
import * as provenance from '../api/provenance.js';
import * as shapes from '../api/index.js';
import * as review from '../api/review.js';
import * as sessions from '../api/sessions.js';
import * as sync from '../api/sync.js';
import * as routines from '../api/routines.js';
import * as tasks from '../api/tasks.js';
import * as ui from '../api/ui.js';
import * as watchdog from '../api/watchdog.js';
import * as web from '../api/web.js';
import * as workers from '../api/workers.js';
import * as workspace from '../api/workspace.js';
import { BatonEvent } from '../events/index.js';
import { VERSION } from '../shared/version.js';

export const TABLES = {
  ...daemon.DAEMON,
  ...doctor.DOCTOR,
  ...sessions.SESSIONS,
  ...history.HISTORY,
  ...ui.UI,
  ...workspace.WORKSPACE,
  ...conflicts.CONFLICTS,
  ...merge.MERGE,
  ...review.REVIEW,
  ...environments.ENVIRONMENTS,
  ...routines.ROUTINES,
  ...tasks.TASKS,
  ...mcp.MCP,
  ...policy.POLICY,
  ...watchdog.WATCHDOG,
  ...context.CONTEXT,
  ...attempts.ATTEMPTS,
  ...sync.SYNC,
  ...workers.WORKERS,
  ...provenance.PROVENANCE,
} as const;

const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
});

export function openApiDocument(): Record<string, unknown> {
  const names = new Map<z.ZodType, string>([
    [BatonEvent, 'BatonEvent'],
    [ErrorBody, 'Error'],
  ]);
  for (const module of [
    shapes,
    web,
    daemon,
    doctor,
    sessions,
    history,
    ui,
    conflicts,
    merge,
    review,
    environments,
    routines,
    tasks,
    mcp,
    policy,
    watchdog,
    context,
    attempts,
    workers,
  ] as Record<string, unknown>[]) {
    for (const [name, value] of Object.entries(module))
      if (value instanceof z.ZodType && !names.has(value)) names.set(value, name);
  }
  const schemas: Record<string, unknown> = {};
  const ref = (schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> => {
    const name = names.get(schema);
    if (name === undefined) return jsonSchema(schema, io);
    schemas[name] ??= jsonSchema(schema, io);
    return { $ref: `#/components/schemas/${name}` };
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [route, spec] of Object.entries(TABLES) as [string, EndpointSpec][]) {
    const [method, path] = route.split(' ') as [string, string];
    (paths[path.replace(/:(\w+)/g, '{$1}')] ??= {})[method.toLowerCase()] = operation(path, spec, ref);
  }
  ref(ErrorBody, 'output');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Baton supervisor API',
      version: VERSION,
      description:
        'Loopback only. Authenticate with `Authorization: Bearer <$BATON_HOME/token>`, or from a browser with the cookie `baton ui` sets (non-GET requests must then carry the page Origin), ' +
        'or with a session credential (the MCP server Baton attaches to a session): only operations marked `x-baton-sessions`, reading (`read`) or acting as that session only (`own`). ' +
        `Request bodies are limited to ${shapes.MAX_BODY_BYTES} bytes; a larger one is refused with 413 (\`too_large\`) before it is read.`,
    },
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'baton_<port>' },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}

type Ref = (schema: z.ZodType, io: 'input' | 'output') => Record<string, unknown>;

function operation(path: string, spec: EndpointSpec, ref: Ref): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [];
  for (const [, name] of path.matchAll(/:(\w+)/g)) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      description: pathParameter(path, name ?? ''),
      schema: { type: 'string' },
    });
  }
  for (const [name, field] of Object.entries(spec.query?.shape ?? {}) as [string, z.ZodType][]) {
    parameters.push({
      name,
      in: 'query',
      required: false,
      description: field.description,
      schema: { type: 'string' },
    });
  }
  const content: Record<string, unknown> = {};
  if (spec.response !== undefined) content['application/json'] = { schema: ref(spec.response, 'output') };
  if (spec.sse !== undefined) {
    const messages = Object.entries(spec.sse).map(([event, schema]) => ({
      title: event,
      ...ref(schema, 'output'),
    }));
    content['text/event-stream'] = {
      schema: {
        type: 'string',
        description: `Server-sent events: ${Object.keys(spec.sse)
          .map((e) => `\`${e}\``)
          .join(', ')}`,
      },
      'x-events': messages,
    };
  }
  if (spec.text !== undefined) content[spec.text] = { schema: { type: 'string' } };
  const op: Record<string, unknown> = {
    summary: spec.summary,
    responses: {
      [String(spec.status ?? 200)]: { description: 'OK', content },
      default: {
        description: 'Error',
        content: { 'application/json': { schema: ref(ErrorBody, 'output') } },
      },
    },
  };
  if (spec.tokenOnly === true) op.security = [{ bearer: [] }];
  if (spec.sessions !== undefined) op['x-baton-sessions'] = spec.sessions;
  if (parameters.length > 0) op.parameters = parameters;
  if (spec.body !== undefined)
    op.requestBody = { required: true, content: { 'application/json': { schema: ref(spec.body, 'input') } } };
  return op;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json: Record<string, unknown> = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  // The dialect is the document's (OpenAPI 3.1), not each schema's.
  delete json.$schema;
  return json;
}

/** What a path parameter names, by its name and the route it is in. */
function pathParameter(path: string, name: string): string {
  if (name === 'n') return 'Group number (as `baton review` lists them)';
  if (name === 'group') return 'Attempt group or fan-out id (or a unique prefix)';
  if (name === 'name' && path.startsWith('/api/routines/')) return 'Routine name';
  if (name === 'id' && path.startsWith('/api/hooks/routines/'))
    return 'Routine id (from `baton routine show`)';
  if (name === 'id' && path.startsWith('/api/tasks/')) return 'Task number';
  return 'Session id, id prefix or name';
}
