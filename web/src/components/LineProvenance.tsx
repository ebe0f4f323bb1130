/**
 * Who wrote a line of a session's diff, and why: hovering (or focusing, with Tab) a line of the
 * new side shows the turn of the session that last wrote it — turn number, the prompt or reply it
 * answered, agent and model — from the session's turn chain (decision 295). The blame is fetched
 * once per file shown, when the diff loads, never per line.
 */
import { useEffect, useState, type FocusEvent, type MouseEvent } from 'react';
import type { SessionBlameView, TurnRecordView } from '../../../src/api/provenance.js';
import { api } from '../api.js';

/** The prompt excerpt shown: enough to recognise the ask, not the whole of it. */
const EXCERPT = 240;

export interface LineAt {
  path: string;
  line: number;
  top: number;
  left: number;
}

/** Each shown file's blame, loaded once per file and again when the session moves on (`version`). */
export function useSessionBlame(
  sessionId: string,
  paths: readonly string[],
  version: number,
): Map<string, SessionBlameView> {
  const [blames, setBlames] = useState(new Map<string, SessionBlameView>());
  const key = paths.join('\0');
  useEffect(() => {
    let current = true;
    setBlames(new Map());
    for (const path of paths)
      api
        .call('GET /api/provenance/sessions/:ref/blame', {
          params: { ref: sessionId },
          query: { file: path },
        })
        .then(
          (view) => current && setBlames((before) => new Map(before).set(path, view)),
          // A file whose blame cannot be read shows no provenance; the diff itself is unaffected.
          () => undefined,
        );
    return () => {
      current = false;
    };
    // `key` stands for `paths`: a new array of the same files is not a reason to fetch again.
  }, [sessionId, key, version]);
  return blames;
}

/**
 * The new-side line under an event in diff2html's output: its file (the wrapper's place among the
 * files, as `paths` lists them) and line number; undefined on an old-side or header row.
 */
export function lineOf(target: EventTarget, paths: readonly string[]): LineAt | undefined {
  if (!(target instanceof Element)) return undefined;
  const row = target.closest('tr');
  const wrapper = target.closest('.d2h-file-wrapper');
  if (row === null || wrapper === null) return undefined;
  const wrappers = [...(wrapper.parentElement?.querySelectorAll(':scope > .d2h-file-wrapper') ?? [])];
  const path = paths[wrappers.indexOf(wrapper)];
  if (path === undefined) return undefined;
  // Unified: the row's second number is the new side's. Split: the right-hand table's number.
  const unified = row.querySelector('.line-num2');
  const sides = [...wrapper.querySelectorAll('.d2h-file-side-diff')];
  const split =
    sides.length === 2 && sides[1]!.contains(row) ? row.querySelector('.d2h-code-side-linenumber') : null;
  const line = Number((unified ?? split)?.textContent?.trim() ?? '');
  if (!Number.isInteger(line) || line < 1) return undefined;
  const box = row.getBoundingClientRect();
  return { path, line, top: box.bottom + 4, left: box.left + 48 };
}

/** Rows of the new side made reachable with Tab, so the provenance is there without a mouse. */
export function focusableLines(body: HTMLElement | null): void {
  if (body === null) return;
  for (const number of body.querySelectorAll(
    '.line-num2, .d2h-file-side-diff:last-child .d2h-code-side-linenumber',
  )) {
    if (number.textContent?.trim() === '') continue;
    const row = number.closest('tr');
    if (row !== null && !row.hasAttribute('tabindex')) row.setAttribute('tabindex', '0');
  }
}

/** Handlers for the diff's body: a line hovered or focused shows its writer; leaving it hides it. */
export function lineHandlers(paths: readonly string[], show: (at: LineAt | undefined) => void) {
  const at = (e: MouseEvent | FocusEvent) => show(lineOf(e.target, paths));
  return { onMouseOver: at, onFocus: at, onMouseLeave: () => show(undefined) };
}

export function LineWhy({ at, blame }: { at: LineAt; blame: SessionBlameView | undefined }) {
  const index = blame?.lines[at.line - 1];
  const turn: TurnRecordView | undefined = index === undefined || index < 0 ? undefined : blame?.turns[index];
  return (
    <div
      className="line-why"
      data-testid="line-provenance"
      role="tooltip"
      style={{ position: 'fixed', top: at.top, left: at.left }}
    >
      <div className="line-why-where">
        {at.path}:{at.line}
      </div>
      {blame === undefined ? (
        <div className="muted">Loading who wrote it…</div>
      ) : turn === undefined ? (
        <div className="muted">
          No turn of this session wrote this line: it is the base&apos;s, or it was written after the last
          recorded turn.
        </div>
      ) : (
        <>
          <div>
            <strong>{turn.name}</strong> · turn {turn.turn} · {turn.agent}
            {turn.model === null ? '' : ` (${turn.model})`}
            {turn.task === null ? '' : ` · task #${turn.task}`}
          </div>
          <div className="line-why-prompt">
            {turn.turn === 1 ? 'Asked: ' : 'Replied: '}
            {turn.prompt.length > EXCERPT ? `${turn.prompt.slice(0, EXCERPT)}…` : turn.prompt}
          </div>
          {turn.handoffFrom !== null && <div className="muted">Handed off from {turn.handoffFrom}</div>}
          <div className="muted">
            Transcript: <code>baton transcript {turn.name}</code> (events {turn.startSeq}–{turn.endSeq})
          </div>
        </>
      )}
    </div>
  );
}
