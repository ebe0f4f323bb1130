/** Baton's MCP server's own endpoints: thin calls to the MCP service, for the calling session. */
import type { MCP } from '../../api/mcp.js';
import type { McpService } from '../../mcp/index.js';
import { sessionCallerOf } from '../session-callers.js';
import type { Handlers } from './mount.js';

export function mcpHandlers(service: McpService): Handlers<typeof MCP> {
  return {
    'GET /api/mcp/me': ({ c }) => service.me(sessionCallerOf(c)),
    'POST /api/mcp/ask': ({ c, body }) => service.ask(sessionCallerOf(c), body.question),
    'POST /api/mcp/messages': ({ c, body, cwd }) =>
      service.message(sessionCallerOf(c), body.to, body.text, cwd),
    'GET /api/mcp/search': ({ query, cwd }) => service.find(query.q, query.limit ?? 20, query.session, cwd),
    'POST /api/mcp/decisions': ({ c, body }) => service.record(sessionCallerOf(c), 'decision', body),
    'POST /api/mcp/notes': ({ c, body }) => service.record(sessionCallerOf(c), 'note', body),
    'POST /api/mcp/tasks': ({ c, body }) =>
      service.record(sessionCallerOf(c), 'task', { title: body.title, text: body.description }),
    'GET /api/mcp/tasks': async ({ c, query }) => ({
      records: await service.tasks(sessionCallerOf(c), query.limit ?? 100),
    }),
    'GET /api/mcp/decisions': ({ query }) => ({ records: service.records('decision', query.limit ?? 100) }),
  };
}
