/** Routines: thin calls to the RoutineService (src/routines). */
import type { ROUTINES } from '../../api/routines.js';
import type { AgentChoice } from '../../doctor/index.js';
import { TEMPLATES, type RoutineService } from '../../routines/index.js';
import { BatonError } from '../../shared/errors.js';
import type { Handlers } from './mount.js';

export function routineHandlers(
  service: RoutineService | undefined,
  /** The agent of a routine that names none: the dispatch default. */
  chooseAgent?: () => AgentChoice,
  /** Refuses a name no agent has (decision 280), so a typo fails when the routine is added, not at each run. */
  knownAgent: (name: string) => void = () => undefined,
): Handlers<typeof ROUTINES> {
  const routines = (): RoutineService => {
    if (service === undefined) throw new BatonError('internal', 'Routines are not set up in this server.');
    return service;
  };
  return {
    'GET /api/routines': async ({ query, cwd }) => ({ routines: await routines().list(query.cwd ?? cwd) }),
    'POST /api/routines': ({ body }) => {
      const agent = body.spec.agent ?? chooseAgent?.().agent;
      if (agent === undefined)
        throw new BatonError('invalid_input', "Name the routine's agent: --agent <name>.");
      knownAgent(agent);
      return routines().add({ ...body, spec: { ...body.spec, agent } });
    },
    'GET /api/routines/templates': () => ({
      templates: TEMPLATES.map((t) => ({
        name: t.name,
        description: t.description,
        options: { ...t.options },
      })),
    }),
    'GET /api/routines/:name': ({ params, cwd }) => routines().show(params.name, cwd),
    'GET /api/routines/:name/history': async ({ params, query, cwd }) => ({
      runs: await routines().history(params.name, cwd, query.limit ?? 50),
    }),
    'POST /api/routines/:name/run': ({ params, cwd }) => routines().runNow(params.name, cwd),
    'POST /api/routines/:name/findings': ({ params, body, cwd }) =>
      routines().triage(params.name, cwd, body.action, body.run),
    'POST /api/routines/:name/pause': ({ params, cwd }) => routines().setPaused(params.name, cwd, true),
    'POST /api/routines/:name/resume': ({ params, cwd }) => routines().setPaused(params.name, cwd, false),
    'DELETE /api/routines/:name': ({ params, cwd }) => routines().remove(params.name, cwd),
    'POST /api/hooks/routines/:id': ({ params, body, c }) =>
      routines().hook(params.id, bearer(c.req.header('authorization')), body.detail ?? {}),
  };
}

function bearer(header: string | undefined): string | undefined {
  return header?.startsWith('Bearer ') === true ? header.slice('Bearer '.length) : undefined;
}
