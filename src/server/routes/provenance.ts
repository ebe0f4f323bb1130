/** Provenance: thin calls to the provenance domain (src/provenance). */
import type { PROVENANCE } from '../../api/provenance.js';
import type { ProvenanceService } from '../../provenance/index.js';
import { BatonError } from '../../shared/errors.js';
import type { Handlers } from './mount.js';

export function provenanceHandlers(service: ProvenanceService | undefined): Handlers<typeof PROVENANCE> {
  const provenance = (): ProvenanceService => {
    if (service === undefined) throw new BatonError('internal', 'Provenance is not set up in this server.');
    return service;
  };
  return {
    'GET /api/provenance/blame': ({ query, cwd }) => provenance().blame(cwd, query.file),
    'GET /api/provenance/why': ({ query, cwd }) => provenance().why(cwd, query.file),
    'GET /api/provenance/sessions/:ref/blame': ({ params, query, cwd }) =>
      provenance().sessionBlame(params.ref, cwd, query.file),
    'GET /api/provenance/evidence': ({ query, cwd }) => ({
      sessions: provenance().evidenceOf(query.session, cwd),
    }),
  };
}
