/**
 * What Baton checked of a session's work (decision 290, "Evidence is kept with its tree and shown
 * wherever a session is"): a chip — verified, failing, claimed — and, where there is room, the
 * check, its tree, and the new tests that pass on the base without the change (decision 292).
 */
import type { SessionView } from '../../../src/api/index.js';

const TITLE: Record<string, string> = {
  verified: 'Baton ran the check on this exact work and it passed',
  failing: 'Baton ran the check on this exact work and it failed',
  claimed: 'The agent ran a check itself; Baton did not verify it',
};

export function EvidenceChip({ session }: { session: SessionView }) {
  const e = session.evidence;
  if (e === undefined) return null;
  return (
    <>
      {e.status !== 'none' && (
        <span
          className={`evidence evidence-${e.status}`}
          data-testid="evidence-chip"
          data-status={e.status}
          title={`${TITLE[e.status] ?? ''}${e.command === null ? '' : `: ${e.command}`}`}
        >
          {e.status}
        </span>
      )}
      {e.vacuous.length > 0 && (
        <span
          className="evidence evidence-failing"
          data-testid="evidence-vacuous"
          title={`Regression test passes without the change: ${e.vacuous.join(', ')}`}
        >
          {e.vacuous.length} vacuous test{e.vacuous.length === 1 ? '' : 's'}
        </span>
      )}
    </>
  );
}

/** The evidence in full, for the session page and the landing form. */
export function EvidencePanel({ session }: { session: SessionView }) {
  const e = session.evidence;
  if (e === undefined) return null;
  const tests =
    e.tests === null ? '' : ` — ${e.tests.passed} passed, ${e.tests.failed} failed of ${e.tests.ran}`;
  return (
    <div className="evidence-panel" data-testid="evidence-panel" data-status={e.status}>
      <div>
        <EvidenceChip session={session} />{' '}
        {e.status === 'claimed' ? (
          <>
            the agent ran <code>{e.command}</code>; Baton did not verify it
          </>
        ) : e.status === 'none' ? (
          <>Baton ran no check on this work</>
        ) : (
          <>
            <code>{e.command}</code>
            {tests} on tree <code>{(e.tree ?? '').slice(0, 12)}</code>
          </>
        )}
      </div>
      {(e.vacuous.length > 0 || e.proving.length > 0) && (
        <ul className="evidence-tests">
          {e.vacuous.map((file) => (
            <li key={file} data-testid="vacuous-test">
              <code>{file}</code>: regression test passes without the change
            </li>
          ))}
          {e.proving.map((file) => (
            <li key={file} data-testid="proving-test">
              <code>{file}</code>: fails on the base, passes with the change
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
