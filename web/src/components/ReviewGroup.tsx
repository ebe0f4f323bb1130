/**
 * One group's combined review: the members' work merged into one diff against their base, each
 * hunk labelled with the session(s) that wrote it (colour and name, linked to the transcript),
 * per-file viewed / approved / changes-requested, and a comment box per hunk whose text goes back
 * to the hunk's writer as a reply. Hunks are rendered by diff2html, one at a time, so each can
 * carry its label and its box; diff2html escapes file contents, so injecting its HTML is safe.
 */
import { html, parse } from 'diff2html';
import 'diff2html/bundles/css/diff2html.min.css';
import type { ColorSchemeType } from 'diff2html/lib/types';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { GroupReview, ReviewFile, ReviewHunk } from '../../../src/api/review.js';
import { api, errorText } from '../api.js';
import { useBoard } from '../board.js';
import { toast } from '../toast.js';
import { GroupLanding, GroupMergeButton, groupKey, useGroupMergePhase } from './GroupLanding.js';
import { isFinal } from '../landing.js';
import { navigate } from '../router.js';
import { EvidenceChip } from './Evidence.js';
import { focusableLines, lineHandlers, LineWhy, useSessionBlame, type LineAt } from './LineProvenance.js';
import { colourOf, SessionTag } from './ReviewTags.js';
import { firstOf, whyNot } from '../why.js';

type FileState = ReviewFile['state'];
const STATES: { state: Exclude<FileState, 'none'>; label: string }[] = [
  { state: 'viewed', label: 'Viewed' },
  { state: 'approved', label: 'Approve' },
  { state: 'changes_requested', label: 'Request changes' },
];

export function ReviewGroup({ project, group }: { project: string; group: string }) {
  const [view, setView] = useState<GroupReview | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loads, setLoads] = useState(0);
  // Combined again when a session of the project arrives, leaves or ends a turn: the group or its work may have changed.
  const board = useBoard();
  const turns = [...board.sessions.values()]
    .filter((s) => s.project === project)
    .map((s) => `${s.id}:${s.state}`)
    .join(',');
  useEffect(() => {
    let current = true;
    api.call('GET /api/review/groups/:n', { params: { n: group }, query: { project } }).then(
      (v) => current && (setView(v), setError(undefined)),
      (e: unknown) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [project, group, loads, turns]);
  const reload = () => setLoads((n) => n + 1);
  const [asking, setAsking] = useState(false);
  const storeKey = groupKey(project, group);
  const phase = useGroupMergePhase(storeKey);
  const merging = phase !== undefined && !isFinal(phase);
  // Its members are removed once the group lands, so the merge is shown even when the group is gone.
  const landing = (
    <GroupLanding storeKey={storeKey} view={view} asking={asking} onClose={() => setAsking(false)} />
  );

  if (error !== undefined)
    return (
      <div className="review-page">
        {landing}
        {phase === 'landed' ? (
          <div className="empty">
            Its sessions landed and were removed.{' '}
            <a href="/review" onClick={(e) => (e.preventDefault(), navigate('/review'))}>
              Back to the review
            </a>
          </div>
        ) : (
          <div className="empty error-text">{error}</div>
        )}
      </div>
    );
  if (view === undefined) return <div className="empty">Combining the group’s work…</div>;
  const names = view.members.map((m) => m.name);
  const ids = new Map(view.members.map((m) => [m.name, m.id]));
  const done = view.files.filter((f) => f.state === 'approved').length;
  return (
    <div className="review-page" data-testid="review-page">
      <div className="review-head">
        <h1>
          Group {view.number} <span className="muted">· {view.project}</span>
        </h1>
        <span className="muted">
          against <code>{view.base.slice(0, 10)}</code> · {done}/{view.files.length} files approved
        </span>
        <span className="grow" />
        <button className="btn btn-sm" onClick={reload}>
          Refresh
        </button>
        <GroupMergeButton view={view} merging={merging} onMerge={() => setAsking(true)} />
      </div>
      {landing}
      <div className="review-members">
        {view.members.map((m) => (
          <span key={m.id} className="review-member">
            <SessionTag names={names} name={m.name} id={m.id} />{' '}
            <span className={`chip chip-${m.state}`}>{m.state.replace(/_/g, ' ')}</span>
            {board.sessions.get(m.id) !== undefined && (
              <EvidenceChip session={board.sessions.get(m.id)!} />
            )}{' '}
            <span className="muted mono">{m.branch}</span>
          </span>
        ))}
      </div>
      {view.reasons.length > 0 && (
        <ul className="review-reasons">
          {view.reasons.map((r, i) => (
            <li key={i}>{r.text}</li>
          ))}
        </ul>
      )}
      {view.conflicts.map((c) => (
        <div key={c.path} className="warn-bar review-conflict" data-testid="review-conflict">
          Conflict: {c.sessions.join(' and ')} change <code>{c.path}</code> in ways that do not merge. Each
          side is shown below.
        </div>
      ))}
      {view.files.length === 0 && <div className="empty">No changes against the base yet.</div>}
      {view.files.map((file) => (
        <FileReview key={file.path} view={view} file={file} names={names} ids={ids} onChange={reload} />
      ))}
    </div>
  );
}

function FileReview({
  view,
  file,
  names,
  ids,
  onChange,
}: {
  view: GroupReview;
  file: ReviewFile;
  names: string[];
  ids: Map<string, string>;
  onChange: () => void;
}) {
  const [busy, setBusy] = useState(false);
  // A file already looked at folds away, as in a code review; a click opens it again.
  const [folded, setFolded] = useState<boolean | undefined>();
  const isFolded = folded ?? (file.state === 'viewed' || file.state === 'approved');
  // Requesting changes asks what to change first; the text goes to the file's writers.
  const [asking, setAsking] = useState(false);
  const [message, setMessage] = useState('');
  // Who wrote each line, when one session wrote the whole file's change: the combined file is then
  // that session's own, line for line, and its blame is fetched once (decision 295).
  const writer =
    file.sessions.length === 1 && file.conflict === null && file.status !== 'deleted' && !file.binary
      ? ids.get(file.sessions[0]!)
      : undefined;
  const blames = useSessionBlame(writer ?? '', writer === undefined ? [] : [file.path], 0);
  const [hovered, setHovered] = useState<LineAt | undefined>();
  const hunks = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (writer !== undefined) focusableLines(hunks.current);
  });
  const setState = async (state: FileState, text = '') => {
    setBusy(true);
    try {
      const body = { path: file.path, state, ...(text.trim() === '' ? {} : { message: text }) };
      const result = await api.call('POST /api/review/groups/:n/files', {
        params: { n: String(view.number) },
        query: { project: view.project },
        body,
      });
      if (result.sentTo.length > 0)
        toast(`Sent to ${result.sentTo.map((s) => s.name).join(' and ')} as a reply.`);
      setFolded(undefined);
      setAsking(false);
      setMessage('');
      onChange();
    } catch (e) {
      toast(errorText(e), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section
      className={`review-file state-${file.state}`}
      data-testid="review-file"
      data-path={file.path}
      data-state={file.state}
    >
      <div className="review-file-head">
        <button
          className="fold"
          aria-expanded={!isFolded}
          onClick={() => setFolded(!isFolded)}
          title={isFolded ? 'Show the changes' : 'Fold'}
        >
          {isFolded ? '▸' : '▾'}
        </button>
        <code className="review-path">{file.path}</code>
        <span className="muted">{file.status}</span>
        {file.conflict !== null && <span className="chip chip-failed">conflict</span>}
        {file.sessions.map((n) => (
          <SessionTag key={n} names={names} name={n} id={ids.get(n)} />
        ))}
        <span className="grow" />
        <div className="seg">
          {STATES.map(({ state, label }) => (
            <button
              key={state}
              className={`seg-btn${file.state === state ? ' active' : ''}`}
              {...whyNot(busy && 'Saving the file’s review…')}
              aria-pressed={file.state === state}
              onClick={() =>
                state === 'changes_requested' && file.state !== state
                  ? setAsking(!asking)
                  : void setState(file.state === state ? 'none' : state)
              }
            >
              {file.state === state && state === 'approved' ? 'Approved' : label}
            </button>
          ))}
        </div>
      </div>
      {asking && (
        <div className="review-comment" data-testid="request-changes">
          <textarea
            value={message}
            onChange={(e) => setMessage(e.target.value)}
            placeholder={`What should change? Sent to ${file.sessions.join(' and ')} as a reply (optional)`}
            rows={3}
          />
          <button
            className="btn btn-sm btn-primary"
            {...whyNot(busy && 'Saving the file’s review…')}
            onClick={() => void setState('changes_requested', message)}
          >
            Request changes
          </button>
        </div>
      )}
      {!isFolded && file.binary && <div className="empty">Binary file.</div>}
      {!isFolded && file.omittedLines > 0 && (
        <div className="empty">{file.omittedLines} changed lines: too many to show here.</div>
      )}
      <div ref={hunks} {...(writer === undefined ? {} : lineHandlers([file.path], setHovered))}>
        {!isFolded &&
          file.hunks.map((hunk, i) => (
            <HunkReview key={i} view={view} file={file} hunk={hunk} names={names} ids={ids} />
          ))}
      </div>
      {hovered !== undefined && writer !== undefined && !isFolded && (
        <LineWhy at={hovered} blame={blames.get(file.path)} />
      )}
    </section>
  );
}

function HunkReview({
  view,
  file,
  hunk,
  names,
  ids,
}: {
  view: GroupReview;
  file: ReviewFile;
  hunk: ReviewHunk;
  names: string[];
  ids: Map<string, string>;
}) {
  const rendered = useMemo(
    () =>
      html(parse(hunkText(file, hunk)), {
        drawFileList: false,
        outputFormat: 'line-by-line',
        colorScheme: 'light' as ColorSchemeType,
      }),
    [file, hunk],
  );
  const changed = hunk.lines.filter((l) => l.kind === '+' && l.new !== null).map((l) => l.new!);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [start, setStart] = useState(changed[0] ?? hunk.newStart);
  const [end, setEnd] = useState(changed.at(-1) ?? hunk.newStart);
  const [sending, setSending] = useState(false);
  const send = async () => {
    setSending(true);
    try {
      const sent = await api.call('POST /api/review/groups/:n/comments', {
        params: { n: String(view.number) },
        query: { project: view.project },
        body: { path: file.path, line: start, ...(end === start ? {} : { endLine: end }), text },
      });
      toast(`Sent to ${sent.sentTo.map((s) => s.name).join(' and ')} as a reply.`);
      setText('');
      setOpen(false);
    } catch (e) {
      toast(errorText(e), 'error');
    } finally {
      setSending(false);
    }
  };
  // The hunk's edge in its writer's colour; several writers, or none, leave it grey.
  const colour = hunk.sessions.length === 1 ? { borderLeftColor: colourOf(names, hunk.sessions[0]!) } : {};
  return (
    <div
      className="review-hunk"
      data-testid="review-hunk"
      data-sessions={hunk.sessions.join(',')}
      style={colour}
    >
      <div className="review-hunk-bar">
        <span className="muted">{file.conflict === null ? 'written by' : 'side of'}</span>
        {hunk.sessions.length === 0 ? (
          <span className="muted">none of these sessions (a newer base, or the merge)</span>
        ) : (
          hunk.sessions.map((n) => <SessionTag key={n} names={names} name={n} id={ids.get(n)} />)
        )}
        <span className="grow" />
        <button className="btn btn-sm" onClick={() => setOpen(!open)}>
          Comment
        </button>
      </div>
      <div className="diff-body" dangerouslySetInnerHTML={{ __html: rendered }} />
      {open && (
        <div className="review-comment" data-testid="review-comment">
          <label>
            Lines{' '}
            <input
              type="number"
              min={1}
              value={start}
              onChange={(e) => setStart(Number(e.target.value))}
              aria-label="First line"
            />{' '}
            –{' '}
            <input
              type="number"
              min={1}
              value={end}
              onChange={(e) => setEnd(Number(e.target.value))}
              aria-label="Last line"
            />
          </label>
          <textarea
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={`Sent to ${hunk.sessions.join(' and ') || 'the writer'} as a reply, quoting these lines`}
            rows={3}
          />
          <button
            className="btn btn-sm btn-primary"
            {...whyNot(firstOf(sending && 'Sending…', text.trim() === '' && 'Write what to change first'))}
            onClick={() => void send()}
          >
            Send to {hunk.sessions.join(' and ') || 'the writer'}
          </button>
        </div>
      )}
    </div>
  );
}

/** One hunk as a unified diff of its own, for diff2html. */
function hunkText(file: ReviewFile, hunk: ReviewHunk): string {
  const from = file.status === 'added' ? '/dev/null' : `a/${file.oldPath ?? file.path}`;
  const to = file.status === 'deleted' ? '/dev/null' : `b/${file.path}`;
  return `diff --git a/${file.oldPath ?? file.path} b/${file.path}\n--- ${from}\n+++ ${to}\n${hunk.header}\n${hunk.lines.map((l) => `${l.kind}${l.text}`).join('\n')}\n`;
}
