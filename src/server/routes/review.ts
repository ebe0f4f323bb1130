/** Review: thin calls to the ReviewService (src/review). */
import type { REVIEW } from '../../api/review.js';
import type { ReviewService } from '../../review/index.js';
import { BatonError } from '../../shared/errors.js';
import type { Handlers } from './mount.js';

export function reviewHandlers(service: ReviewService | undefined): Handlers<typeof REVIEW> {
  const review = (): ReviewService => {
    if (service === undefined) throw new BatonError('internal', 'Review is not set up in this server.');
    return service;
  };
  return {
    'GET /api/review/groups': ({ query, cwd }) => review().listGroups(query.project, cwd),
    'GET /api/review/groups/:n': ({ params, query, cwd }) => review().group(params.n, query.project, cwd),
    'POST /api/review/groups/:n/files': ({ params, query, body, cwd }) =>
      review().setFileState(params.n, body.path, body.state, query.project, cwd, body.message),
    'POST /api/review/groups/:n/comments': ({ params, query, body, cwd }) =>
      review().comment(params.n, body, query.project, cwd),
  };
}
