/**
 * The terminal board: the live list, its keys and the panel under it. State comes from the one
 * feed (feed.ts) through the pure model (model.ts); keys call the typed client (actions.ts).
 */
import { Box, useApp, useInput, type Key } from 'ink';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SessionView } from '../api/index.js';
import type { SupervisorClient } from '../cli/client.js';
import { client } from '../cli/connect.js';
import type { Context } from '../cli/context.js';
import * as act from './actions.js';
import { Attach } from './Attach.js';
import { runFeed } from './feed.js';
import { Footer, Header, SessionList, WorkspaceFeed } from './List.js';
import { applyUpdate, boardRows, cursorOrder, emptyBoard, moveCursor, scrollTop, type BoardData, type StreamUpdate } from './model.js';
import { AnswerPanel, DispatchPanel, FilterPanel, HelpPanel, PeekPanel, RemovePanel } from './Panels.js';
import { useTerminalSize } from './size.js';

export interface AppProps {
  ctx: Context;
  /** The repository the board was opened in, if any: its sessions are shown first (tab switches). */
  here: string | undefined;
  color: boolean;
  /** Told when the board has painted sessions and after each update it renders (the bench listens). */
  onFrame?: (board: BoardData) => void;
}

type Mode =
  | { kind: 'list' }
  | { kind: 'peek' }
  | { kind: 'answer'; answer: 'reply' | 'allow' | 'deny'; text: string }
  | { kind: 'dispatch'; form: act.DispatchForm; field: number; error: string }
  | { kind: 'filter' }
  | { kind: 'remove' }
  | { kind: 'help' }
  | { kind: 'attach'; id: string };

export function App({ ctx, here, color, onFrame }: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize();
  const model = useRef<BoardData>(emptyBoard);
  const [board, setBoard] = useState<BoardData>(emptyBoard);
  const [feedRun, setFeedRun] = useState(0);
  const api = useRef<SupervisorClient | undefined>(undefined);
  const [mode, setMode] = useState<Mode>({ kind: 'list' });
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [top, setTop] = useState(0);
  const [filter, setFilter] = useState('');
  const [onlyHere, setOnlyHere] = useState(here !== undefined);
  const [note, setNote] = useState('');
  const [peek, setPeek] = useState<{ id: string; seq: number; data?: act.PeekData; error?: string } | undefined>();
  const now = useClock(AGE_TICK_MS);

  useEffect(() => {
    const controller = new AbortController();
    const onUpdate = (update: StreamUpdate): void => {
      model.current = applyUpdate(model.current, update);
      setBoard(model.current);
    };
    void runFeed({ ctx, signal: controller.signal, onUpdate, lastSeq: () => model.current.lastSeq, onClient: (c) => (api.current = c) });
    return () => controller.abort();
  }, [feedRun]);

  useEffect(() => {
    if (board.loaded) onFrame?.(board);
  }, [board]);

  const scope = { projectRoot: onlyHere ? here : undefined, filter };
  const rows = useMemo(() => boardRows(board.sessions.values(), scope), [board.sessions, onlyHere, filter]);
  const order = useMemo(() => cursorOrder(rows), [rows]);
  const selected: SessionView | undefined = board.sessions.get(selectedId !== undefined && order.includes(selectedId) ? selectedId : (order[0] ?? ''));
  const manyProjects = new Set([...board.sessions.values()].map((s) => s.projectRoot)).size > 1 && !onlyHere;

  // What the panel needs about the selected session: loaded when a panel opens, again when the session moves on.
  const needsContext = mode.kind === 'peek' || mode.kind === 'answer';
  useEffect(() => {
    if (!needsContext || selected === undefined) return;
    if (peek?.id === selected.id && peek.seq === selected.lastSeq) return;
    const target = { id: selected.id, seq: selected.lastSeq };
    setPeek((previous) => (previous?.id === target.id ? { ...previous, ...target } : target));
    withApi((c) => act.peekSession(c, target.id)).then(
      (data) => setPeek((p) => (p?.id === target.id ? { ...p, data } : p)),
      (error: unknown) => setPeek((p) => (p?.id === target.id ? { ...p, error: act.failure(error) } : p)),
    );
  }, [needsContext, selected?.id, selected?.lastSeq]);

  const withApi = async <T,>(call: (c: SupervisorClient) => Promise<T>): Promise<T> => call(api.current ?? (await client(ctx)));
  const run = (call: (c: SupervisorClient) => Promise<string>, after: Mode = { kind: 'list' }): void => {
    withApi(call).then(
      (message) => {
        setNote(message);
        setMode(after);
      },
      (error: unknown) => setNote(act.failure(error)),
    );
  };

  const listHeight = Math.max(3, size.rows - 1 - 3 - panelHeight(mode, size.rows));
  const select = (id: string | undefined): void => {
    setSelectedId(id);
    const index = rows.findIndex((r) => r.session?.id === id);
    // Keep the group title above the first session in view.
    if (index >= 0) setTop((t) => scrollTop(t, index <= 1 ? 0 : index, listHeight, rows.length));
  };
  const move = (delta: number): void => select(moveCursor(order, selected?.id, delta));

  // Keys read this render's state through a ref: Ink re-subscribes a new handler only after
  // React's passive effects run, and a key arriving before that (a person quick on a changed
  // screen) must not meet the previous screen's state.
  const onKey = useRef<(input: string, key: Key) => void>(() => undefined);
  onKey.current = (input, key) => {
    if (mode.kind === 'attach') return;
    if (key.escape) {
      // Esc closes a panel; on the bare list (or in the filter box) it clears the filter.
      if (mode.kind === 'filter' || mode.kind === 'list') setFilter('');
      setMode({ kind: 'list' });
      return;
    }
    if (mode.kind === 'dispatch') {
      if (key.tab || key.downArrow) setMode({ ...mode, field: (mode.field + 1) % 3 });
      if (key.upArrow) setMode({ ...mode, field: (mode.field + 2) % 3 });
      return;
    }
    if (mode.kind === 'answer' || mode.kind === 'filter') {
      if (mode.kind === 'answer' && mode.answer === 'allow' && key.return && selected !== undefined) run((c) => act.decide(c, selected, 'allow', ''));
      return;
    }
    if (mode.kind === 'remove') {
      if (input === 'y' && selected !== undefined) run((c) => act.remove(c, selected));
      else setMode({ kind: 'list' });
      return;
    }
    if (input === 'q') return exit();
    // Ink hands a burst of plain keys over as one input: a held j or k moves as far as it was pressed.
    if (/^j+$/.test(input) || key.downArrow) return move(Math.max(1, input.length));
    if (/^k+$/.test(input) || key.upArrow) return move(-Math.max(1, input.length));
    if (key.pageDown) return move(listHeight);
    if (key.pageUp) return move(-listHeight);
    if (input === '?') return setMode(mode.kind === 'help' ? { kind: 'list' } : { kind: 'help' });
    if (input === '/') return setMode({ kind: 'filter' });
    if (input === 'n') return setMode({ kind: 'dispatch', form: act.emptyDispatch, field: 0, error: '' });
    if (key.tab && here !== undefined) return setOnlyHere(!onlyHere);
    if (input === 'R' && board.status.kind === 'stopped') return setFeedRun((n) => n + 1);
    if (selected === undefined) return;
    if (key.return || key.rightArrow) return setMode({ kind: 'attach', id: selected.id });
    if (input === ' ') return setMode(mode.kind === 'peek' ? { kind: 'list' } : { kind: 'peek' });
    if (input === 'r') return setMode({ kind: 'answer', answer: 'reply', text: '' });
    if (input === 'a' || input === 'd') {
      if (selected.state !== 'needs_input' || selected.reason?.kind !== 'approval') return setNote(`${selected.name} is not waiting for an approval.`);
      return setMode({ kind: 'answer', answer: input === 'a' ? 'allow' : 'deny', text: '' });
    }
    if (input === 'p') return run((c) => act.togglePin(c, selected), mode);
    if (input === 's') return run((c) => act.stop(c, selected), mode);
    if (input === 'x') return setMode({ kind: 'remove' });
  };
  useInput((input, key) => onKey.current(input, key), { isActive: mode.kind !== 'attach' });

  if (mode.kind === 'attach') {
    const session = board.sessions.get(mode.id);
    if (session !== undefined) {
      return <Attach ctx={ctx} api={api.current} session={session} width={size.columns} height={size.rows - 1} color={color} onBack={() => setMode({ kind: 'list' })} />;
    }
  }

  const scopeLabel = here === undefined ? 'every repository' : onlyHere ? `${basename(here)} (tab: every repository)` : `every repository (tab: ${basename(here)})`;
  const shownCount = order.length;
  const totalCount = onlyHere ? [...board.sessions.values()].filter((s) => s.projectRoot === here).length : board.sessions.size;
  const width = size.columns;
  const panel = panelHeight(mode, size.rows);
  return (
    <Box flexDirection="column" height={size.rows - 1} width={width}>
      <Header scope={scopeLabel} count={shownCount} total={totalCount} filter={filter} status={board.status} width={width} color={color} />
      <SessionList rows={rows} top={Math.min(top, Math.max(0, rows.length - listHeight))} height={listHeight} selectedId={selected?.id} manyProjects={manyProjects} now={now} width={width} color={color} empty={emptyText(board, filter, onlyHere)} conflicts={board.conflicts} />
      {renderPanel()}
      <Footer note={note} width={width} color={color} />
    </Box>
  );

  function renderPanel() {
    const context = peek !== undefined && peek.id === selected?.id ? peek : undefined;
    switch (mode.kind) {
      case 'list':
      case 'attach':
        return <WorkspaceFeed events={board.events} height={panel} width={width} color={color} />;
      case 'peek':
        return selected === undefined ? null : <PeekPanel session={selected} data={context?.data} error={context?.error} width={width} height={panel} />;
      case 'answer': {
        if (selected === undefined) return null;
        const submit = (text: string): void => {
          if (mode.answer === 'reply') run((c) => act.reply(c, selected, text));
          else run((c) => act.decide(c, selected, mode.answer === 'deny' ? 'deny' : 'allow', text));
        };
        return <AnswerPanel kind={mode.answer} session={selected} data={context?.data} error={context?.error} text={mode.text} onChange={(text) => setMode({ ...mode, text })} onSubmit={submit} width={width} height={panel} />;
      }
      case 'dispatch': {
        const cwd = onlyHere && here !== undefined ? here : (selected?.projectRoot ?? here ?? ctx.cwd);
        const submit = (form: act.DispatchForm): void => {
          if (mode.field < 2) return setMode({ ...mode, form, field: mode.field + 1 });
          withApi((c) => act.dispatch(c, form, cwd)).then(
            (message) => {
              setNote(message);
              setMode({ kind: 'list' });
            },
            (error: unknown) => setMode({ ...mode, form, error: act.failure(error) }),
          );
        };
        return <DispatchPanel color={color} form={mode.form} field={mode.field} cwd={cwd} error={mode.error} onChange={(form) => setMode({ ...mode, form, error: '' })} onSubmit={submit} width={width} height={panel} />;
      }
      case 'filter':
        return <FilterPanel text={filter} onChange={setFilter} onSubmit={() => setMode({ kind: 'list' })} width={width} />;
      case 'remove':
        return selected === undefined ? null : <RemovePanel session={selected} width={width} />;
      case 'help':
        return <HelpPanel width={width} height={panel} />;
    }
  }
}

/** Ages are shown to the second only below a minute: redrawing them every few seconds is enough. */
const AGE_TICK_MS = 5_000;

/** The time, moved on every `tickMs`: the rows' ages follow without every frame asking the clock. */
function useClock(tickMs: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    timer.unref();
    return () => clearInterval(timer);
  }, [tickMs]);
  return now;
}

/** Lines under the list: the workspace feed grows on a tall terminal; forms take what they need. */
function panelHeight(mode: Mode, rows: number): number {
  switch (mode.kind) {
    case 'list':
    case 'attach':
      return rows >= 40 ? 8 : 4;
    case 'peek':
    case 'answer':
      return rows >= 40 ? 14 : 10;
    case 'dispatch':
      return 6;
    case 'filter':
      return 2;
    case 'remove':
      return 5;
    case 'help':
      return 11;
  }
}

function emptyText(board: BoardData, filter: string, onlyHere: boolean): string {
  if (!board.loaded) return 'Connecting to the supervisor…';
  if (filter !== '') return `No session matches "${filter}" (esc clears the filter).`;
  if (onlyHere && board.sessions.size > 0) return 'No session in this repository yet; tab shows every repository, n dispatches one here.';
  return 'No sessions yet. n dispatches one (or: baton dispatch "what to do").';
}

function basename(path: string): string {
  return path.split('/').filter(Boolean).at(-1) ?? path;
}
