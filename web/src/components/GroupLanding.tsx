/**
 * Landing a coupled group from its combined review: the members land together, in the planned
 * order (fewest conflicts first), checked as a whole; nothing lands unless all of them do. The
 * members are removed once landed, so the group's page may then have nothing to show but this.
 */
import type { GroupReview } from '../../../src/api/review.js';
import { useBoard } from '../board.js';
import {
  forgetStarted,
  isFinal,
  LANDABLE_STATES,
  useLanding,
  useLandingFeed,
  type MergeTrack,
} from '../landing.js';
import { MergeForm } from './MergeForm.js';
import { MergeProgress } from './MergeProgress.js';
import { firstOf, whyNot } from '../why.js';

export function groupKey(project: string, group: string): string {
  return `group:${project}/${group}`;
}

/** Members whose agent is still at work (or about to be): the group cannot land until they finish or are stopped. */
export function busyMembers(view: GroupReview): string[] {
  return view.members.filter((m) => !LANDABLE_STATES.includes(m.state)).map((m) => m.name);
}

export function GroupMergeButton({
  view,
  merging,
  onMerge,
}: {
  view: GroupReview;
  merging: boolean;
  onMerge: () => void;
}) {
  const busy = busyMembers(view);
  const waiting =
    busy.length > 0
      ? busy.length === 1
        ? `${busy[0]} is still working: merge when it finishes or is stopped`
        : `${busy.join(' and ')} are still working: merge when they finish or are stopped`
      : undefined;
  return (
    <>
      {/* Said on the page, not only in the tooltip: a disabled button that only hints why leaves people guessing. */}
      {waiting !== undefined && (
        <span className="why" data-testid="group-merge-why">
          {waiting}
        </span>
      )}
      <button
        className="btn btn-sm btn-primary"
        {...whyNot(
          firstOf(waiting, merging && 'The group is being merged'),
          'Land every member together, in the planned order',
        )}
        onClick={onMerge}
        data-testid="group-merge-button"
      >
        {merging ? 'Merging…' : 'Merge group'}
      </button>
    </>
  );
}

/** The form while asked, then the group's merge as it goes and ends. */
export function GroupLanding({
  storeKey,
  view,
  asking,
  onClose,
}: {
  storeKey: string;
  view: GroupReview | undefined;
  asking: boolean;
  onClose: () => void;
}) {
  useLandingFeed();
  const { tracks, started } = useLanding();
  const board = useBoard();
  const mergeId = started[storeKey];
  const track = mergeId === undefined ? undefined : tracks.get(mergeId);
  const base = view?.members.map((m) => board.sessions.get(m.id)?.baseRef).find((b) => b !== undefined);
  return (
    <>
      {asking && view !== undefined && (
        <MergeForm
          title={
            <>
              Land group {view.number} ({view.members.map((m) => m.name).join(', ')}) on{' '}
              <code>{base ?? 'its base'}</code>
            </>
          }
          sessions={view.members.map((m) => m.id)}
          planned
          rememberAs={storeKey}
          submit="Merge the group"
          onStarted={onClose}
          onCancel={onClose}
        >
          The members are merged one after another in the order with the fewest conflicts, then checked once
          as a whole. Nothing lands unless every member merges and the check passes; a member that breaks it
          is named and told.
        </MergeForm>
      )}
      {track !== undefined && !(asking && isFinal(track.phase)) && (
        <MergeProgress track={track} onDismiss={() => forgetStarted(storeKey)} />
      )}
    </>
  );
}

/** Where the merge this page started is: undefined before one, then its phase. */
export function useGroupMergePhase(storeKey: string): MergeTrack['phase'] | undefined {
  const { tracks, started } = useLanding();
  const id = started[storeKey];
  return id === undefined ? undefined : tracks.get(id)?.phase;
}
