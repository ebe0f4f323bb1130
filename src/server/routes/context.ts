/** Transcripts, search, handoff and import: thin calls to the context domain. */
import { join } from 'node:path';
import type { CONTEXT } from '../../api/context.js';
import type { ContextService, SearchKind } from '../../context/index.js';
import type { SessionManager } from '../../sessions/index.js';
import type { Handlers } from './mount.js';

export function contextHandlers(context: ContextService, manager: SessionManager): Handlers<typeof CONTEXT> {
  return {
    'GET /api/search': ({ query, cwd }) => {
      const hits = context.search({
        query: query.q,
        project: query.project,
        agent: query.agent,
        session: query.session,
        task: query.task,
        since: query.since,
        kinds: query.kind === undefined ? undefined : (query.kind.split(',') as SearchKind[]),
        limit: query.limit,
        cwd,
      });
      return { query: query.q, hits };
    },
    'GET /api/transcripts/:ref': ({ params, cwd }) => context.exportTranscript(params.ref, { cwd }),
    'POST /api/transcripts/:ref/export': ({ params, body, cwd }) =>
      context.exportTranscript(params.ref, { cwd, toRepo: body.toRepo }),
    'POST /api/handoffs': async ({ body, cwd }) => {
      const request = {
        from: body.from,
        to: body.to,
        task: body.task,
        budgetTokens: body.budget,
        cwd,
        name: body.name,
        model: body.model,
        permissionMode: body.permissionMode,
        fromBranch: body.fromBranch,
      };
      if (body.preview) return { handoffId: null, session: null, pack: (await context.pack(request)).pack };
      const { session, pack, handoffId } = await context.handoff(request);
      return { handoffId, session: manager.view(session), pack };
    },
    // A landed or removed session's handoffs too: its record outlives it (decision 168).
    'GET /api/handoffs/:ref': ({ params, cwd }) =>
      context.handoffsOf(manager.resolveRecord(params.ref, cwd).id),
    'POST /api/import': ({ body }) => ({
      reports: context.importNative({
        ...(body.claudeHome === undefined ? {} : { claude: join(body.claudeHome, 'projects') }),
        ...(body.codexHome === undefined ? {} : { codex: join(body.codexHome, 'sessions') }),
        ...(body.geminiHome === undefined ? {} : { gemini: join(body.geminiHome, 'tmp') }),
        ...(body.opencodeData === undefined ? {} : { opencode: body.opencodeData }),
      }),
    }),
  };
}
