/** Landing work: thin calls to the merge domain. */
import type { MERGE } from '../../api/merge.js';
import type { MergeService } from '../../merge/index.js';
import type { Handlers } from './mount.js';

export function mergeHandlers(merges: () => MergeService): Handlers<typeof MERGE> {
  return {
    'POST /api/merges': async ({ body, cwd }) => {
      const { view, seq } = await merges().enqueue(body.sessions, {
        squash: body.squash,
        planned: body.planned,
        cwd,
      });
      return { merge: view, seq };
    },
    'GET /api/merges': () => ({ queue: merges().queue(), recent: merges().recentResults() }),
    'GET /api/merges/plan': ({ query, cwd }) => merges().plan({ cwd, project: query.project }),
    'POST /api/sessions/:ref/pr': ({ params, cwd }) => merges().pullRequest(params.ref, cwd),
  };
}
