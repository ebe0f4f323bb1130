/**
 * The terminal board: the live list, its keys and the panel under it. State comes from the one
 * feed (feed.ts) through the pure model (model.ts); keys call the typed client (actions.ts).
 */
import { Box, Text, useApp, useInput, useStdout, type Key } from 'ink';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { SessionView } from '../api/index.js';
import type { SupervisorClient } from '../cli/client.js';
import { client } from '../cli/connect.js';
import type { Context } from '../cli/context.js';
import * as act from './actions.js';
import { Attach } from './Attach.js';
import { StartedFeed } from './feed.js';
import { OPENS_FIELD, splitBurst } from './keys.js';
import { editLine, emptyLine } from './line-edit.js';
import { Footer, Header, SessionList, WorkspaceFeed } from './List.js';
import {
  boardRows,
  cursorOrder,
  emptyBoard,
  feedInScope,
  moveCursor,
  scrollTop,
  type BoardData,
} from './model.js';
import { AGE_TICK_MS, basename, emptyText, panelHeight, useClock, type Mode } from './layout.js';
import { windowsLine, type WindowFigures } from './lines.js';

/** How often the board asks for the subscription windows again. */
const WINDOWS_REFRESH_MS = 15_000;
import {
  AnswerPanel,
  DispatchPanel,
  FIELDS,
  FilterPanel,
  HelpPanel,
  PeekPanel,
  RemovePanel,
} from './Panels.js';
import { signalsBetween } from './signals.js';
import { useTerminalSize } from './size.js';

export interface AppProps {
  ctx: Context;
  /** The repository the board was opened in, if any: its sessions are shown first (tab switches). */
  here: string | undefined;
  color: boolean;
  /** Told when the board has painted sessions and after each update it renders (the bench listens). */
  onFrame?: (board: BoardData) => void;
  /** The feed already running (see StartedFeed); else the board starts its own. */
  feed?: StartedFeed;
}

export function App({ ctx, here, color, onFrame, feed }: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize();
  const model = useRef<BoardData>(feed?.board ?? emptyBoard);
  const [board, setBoard] = useState<BoardData>(model.current);
  const [feedRun, setFeedRun] = useState(0);
  const api = useRef<SupervisorClient | undefined>(undefined);
  const [mode, setModeState] = useState<Mode>({ kind: 'list' });
  // Keys read and write the mode (and the filter) through refs: several keys can arrive in one read,
  // before React renders again, and each must see what the one before it typed.
  const modeRef = useRef(mode);
  const setMode = (next: Mode): void => {
    modeRef.current = next;
    setModeState(next);
  };
  const [selectedId, setSelectedIdState] = useState<string | undefined>();
  // The selection too: a burst's later keys act on what its earlier ones selected.
  const selectedRef = useRef(selectedId);
  const setSelectedId = (id: string | undefined): void => {
    selectedRef.current = id;
    setSelectedIdState(id);
  };
  const [top, setTop] = useState(0);
  const [filter, setFilterState] = useState('');
  const filterRef = useRef(filter);
  const setFilter = (next: string): void => {
    filterRef.current = next;
    setFilterState(next);
  };
  /** The attached view's key handler, set as it renders: one listener serves the whole board. */
  const attachKeys = useRef<((input: string, key: Key) => void) | undefined>(undefined);
  const [onlyHere, setOnlyHere] = useState(here !== undefined);
  const [note, setNote] = useState('');
  const [peek, setPeek] = useState<
    { id: string; seq: number; data?: act.PeekData; error?: string } | undefined
  >();
  const now = useClock(AGE_TICK_MS);

  useEffect(() => {
    // The feed started before this screen was drawn, the first time; after a restart (R), a new one
    // going on from the board as it stands.
    const running = feedRun === 0 && feed !== undefined ? feed : new StartedFeed(ctx, model.current);
    return running.follow(
      (next) => {
        model.current = next;
        setBoard(next);
      },
      (c) => (api.current = c),
    );
  }, [feedRun]);

  useEffect(() => {
    if (board.loaded) onFrame?.(board);
  }, [board]);

  // The bell, a desktop notification through the terminal, and the waiting count in the title (signals.ts).
  const { stdout } = useStdout();
  const waiting = useRef<Set<string> | undefined>(undefined);
  useEffect(() => {
    if (!board.loaded) return;
    const signals = signalsBetween(waiting.current, board.sessions, ctx.env.BATON_NOTIFY !== 'off');
    waiting.current = signals.waiting;
    if (signals.write !== '') stdout.write(signals.write);
  }, [board.sessions, board.loaded]);

  const scope = { projectRoot: onlyHere ? here : undefined, filter };
  const rows = useMemo(() => boardRows(board.sessions.values(), scope), [board.sessions, onlyHere, filter]);
  const order = useMemo(() => cursorOrder(rows), [rows]);
  const selectedOf = (id: string | undefined): SessionView | undefined =>
    board.sessions.get(id !== undefined && order.includes(id) ? id : (order[0] ?? ''));
  const selected = selectedOf(selectedId);
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

  const withApi = async <T,>(call: (c: SupervisorClient) => Promise<T>): Promise<T> =>
    call(api.current ?? (await client(ctx)));
  const run = (call: (c: SupervisorClient) => Promise<string>, after: Mode = { kind: 'list' }): void => {
    withApi(call).then(
      (message) => {
        setNote(message);
        setMode(after);
      },
      (error: unknown) => setNote(act.failure(error)),
    );
  };

  // The agents' subscription windows, asked for now and then (they change with every reply's headers).
  const [windows, setWindows] = useState<WindowFigures[]>([]);
  useEffect(() => {
    const ask = (): void =>
      void withApi((c) => c.call('GET /api/cost', { query: { by: 'agent' } })).then(
        (report) => setWindows(report.windows),
        () => undefined, // the next look tries again
      );
    ask();
    const timer = setInterval(ask, WINDOWS_REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const windowsText = windowsLine(windows, now, size.columns);

  const listHeight = Math.max(
    3,
    size.rows - 1 - 3 - panelHeight(mode, size.rows) - (windowsText === '' ? 0 : 1),
  );
  const select = (id: string | undefined): void => {
    setSelectedId(id);
    const index = rows.findIndex((r) => r.session?.id === id);
    // Keep the group title above the first session in view.
    if (index >= 0) setTop((t) => scrollTop(t, index <= 1 ? 0 : index, listHeight, rows.length));
  };
  const move = (delta: number): void => select(moveCursor(order, selectedOf(selectedRef.current)?.id, delta));

  // One listener for the whole board, subscribed once: a handler that Ink re-subscribes after
  // React's effects run would miss (or misread) a key typed the moment the screen changed.
  const onKey = useRef<(input: string, key: Key) => void>(() => undefined);
  onKey.current = (input, key) => {
    // Keys typed faster than the board reads arrive as one piece: returns, tabs and backspaces in
    // it are taken one by one, in order, between the runs of text (see keys.ts).
    const pieces = splitBurst(input, key);
    if (pieces !== undefined) {
      for (const [text, flags] of pieces) onKey.current(text, flags);
      return;
    }
    let mode = modeRef.current;
    if (mode.kind === 'attach') {
      if (attachKeys.current !== undefined) return attachKeys.current(input, key);
      // The attached session is gone (removed meanwhile): back to the list, which takes this key.
      mode = { kind: 'list' };
      setMode(mode);
    }
    const selected = selectedOf(selectedRef.current);
    // A run of text on a screen where keys are commands is a paste or typing ahead, not a string
    // of commands: only a key that opens a field ("n" and the prompt after it) takes the rest.
    if ([...input].length > 1 && !typing(mode) && !/^(j+|k+)$/.test(input)) {
      const [first = '', ...rest] = [...input];
      if (!OPENS_FIELD.has(first)) return;
      onKey.current(first, { ...key, shift: false });
      if (typing(modeRef.current)) onKey.current(rest.join(''), key);
      return;
    }
    if (key.escape) {
      // Esc closes a panel; on the bare list (or in the filter box) it clears the filter.
      if (mode.kind === 'filter' || mode.kind === 'list') setFilter('');
      setMode({ kind: 'list' });
      return;
    }
    if (mode.kind === 'dispatch') return dispatchKey(mode, input, key);
    if (mode.kind === 'answer') return answerKey(mode, input, key);
    if (mode.kind === 'filter') {
      const edit = editLine({ value: filterRef.current, cursor: mode.cursor }, input, key);
      if (edit.kind === 'other') return;
      setFilter(edit.line.value);
      return setMode(
        edit.kind === 'submit' ? { kind: 'list' } : { kind: 'filter', cursor: edit.line.cursor },
      );
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
    if (input === '/') return setMode({ kind: 'filter', cursor: filterRef.current.length });
    if (input === 'n')
      return setMode({ kind: 'dispatch', form: act.emptyDispatch, field: 0, cursor: 0, error: '' });
    if (key.tab && here !== undefined) return setOnlyHere(!onlyHere);
    if (input === 'R' && board.status.kind === 'stopped') return setFeedRun((n) => n + 1);
    if (selected === undefined) return;
    if (key.return || key.rightArrow) return setMode({ kind: 'attach', id: selected.id });
    if (input === ' ') return setMode(mode.kind === 'peek' ? { kind: 'list' } : { kind: 'peek' });
    if (input === 'r') return setMode({ kind: 'answer', answer: 'reply', line: emptyLine });
    if (input === 'a' || input === 'd') {
      if (selected.state !== 'needs_input' || selected.reason?.kind !== 'approval')
        return setNote(`${selected.name} is not waiting for an approval.`);
      return setMode({ kind: 'answer', answer: input === 'a' ? 'allow' : 'deny', line: emptyLine });
    }
    if (input === 'p') return run((c) => act.togglePin(c, selected), mode);
    if (input === 's') return run((c) => act.stop(c, selected), mode);
    if (input === 'x') return setMode({ kind: 'remove' });
  };
  const listen = useCallback((input: string, key: Key) => onKey.current(input, key), []);
  useInput(listen);

  /** Tab and the arrows move between the form's fields; enter on the last one dispatches. */
  function dispatchKey(mode: Extract<Mode, { kind: 'dispatch' }>, input: string, key: Key): void {
    const to = (from: typeof mode, field: number): void =>
      setMode({ ...from, field, cursor: from.form[fieldAt(field)].length });
    if (key.tab || key.downArrow) return to(mode, (mode.field + 1) % FIELDS.length);
    if (key.upArrow) return to(mode, (mode.field + FIELDS.length - 1) % FIELDS.length);
    const name = fieldAt(mode.field);
    const edit = editLine({ value: mode.form[name], cursor: mode.cursor }, input, key);
    if (edit.kind === 'other') return;
    const typed = { ...mode, form: { ...mode.form, [name]: edit.line.value }, cursor: edit.line.cursor };
    if (edit.kind === 'changed') return setMode({ ...typed, error: '' });
    if (mode.field < FIELDS.length - 1) return to(typed, mode.field + 1);
    const cwd = dispatchFolder();
    setMode(typed);
    withApi((c) => act.dispatch(c, typed.form, cwd)).then(
      (message) => {
        setNote(message);
        if (modeRef.current.kind === 'dispatch') setMode({ kind: 'list' });
      },
      (error: unknown) => {
        const now = modeRef.current;
        if (now.kind === 'dispatch') setMode({ ...now, error: act.failure(error) });
      },
    );
  }

  /** A reply or a denial's reason is typed; an approval needs only enter. */
  function answerKey(mode: Extract<Mode, { kind: 'answer' }>, input: string, key: Key): void {
    const selected = selectedOf(selectedRef.current);
    if (selected === undefined) return;
    if (mode.answer === 'allow') {
      if (key.return) run((c) => act.decide(c, selected, 'allow', ''));
      return;
    }
    const edit = editLine(mode.line, input, key);
    if (edit.kind === 'other') return;
    setMode({ ...mode, line: edit.line });
    if (edit.kind !== 'submit') return;
    const text = edit.line.value;
    if (mode.answer === 'reply') run((c) => act.reply(c, selected, text));
    else run((c) => act.decide(c, selected, 'deny', text));
  }

  /** Whether the panel has a text field taking what is typed. */
  function typing(m: Mode): boolean {
    return m.kind === 'dispatch' || m.kind === 'filter' || (m.kind === 'answer' && m.answer !== 'allow');
  }

  function fieldAt(index: number): (typeof FIELDS)[number] {
    return FIELDS[index] ?? 'prompt';
  }

  function dispatchFolder(): string {
    const selected = selectedOf(selectedRef.current);
    return onlyHere && here !== undefined ? here : (selected?.projectRoot ?? here ?? ctx.cwd);
  }

  if (mode.kind === 'attach') {
    const session = board.sessions.get(mode.id);
    if (session !== undefined) {
      return (
        <Attach
          keys={attachKeys}
          ctx={ctx}
          api={api.current}
          session={session}
          width={size.columns}
          height={size.rows - 1}
          color={color}
          onBack={() => setMode({ kind: 'list' })}
        />
      );
    }
  }

  const scopeLabel =
    here === undefined
      ? 'every repository'
      : onlyHere
        ? `${basename(here)} (tab: every repository)`
        : `every repository (tab: ${basename(here)})`;
  const shownCount = order.length;
  const totalCount = onlyHere
    ? [...board.sessions.values()].filter((s) => s.projectRoot === here).length
    : board.sessions.size;
  const width = size.columns;
  const panel = panelHeight(mode, size.rows);
  return (
    <Box flexDirection="column" height={size.rows - 1} width={width}>
      <Header
        scope={scopeLabel}
        count={shownCount}
        total={totalCount}
        filter={filter}
        status={board.status}
        width={width}
        color={color}
      />
      {windowsText !== '' && <Text wrap="truncate">{windowsText}</Text>}
      <SessionList
        rows={rows}
        top={Math.min(top, Math.max(0, rows.length - listHeight))}
        height={listHeight}
        selectedId={selected?.id}
        manyProjects={manyProjects}
        now={now}
        width={width}
        color={color}
        empty={emptyText(board, filter, onlyHere)}
        conflicts={board.conflicts}
      />
      {renderPanel()}
      <Footer note={note} width={width} color={color} />
    </Box>
  );

  function renderPanel() {
    const context = peek !== undefined && peek.id === selected?.id ? peek : undefined;
    switch (mode.kind) {
      case 'list':
      case 'attach':
        return (
          <WorkspaceFeed
            events={feedInScope(board.events, board.sessions.values(), scope.projectRoot)}
            height={panel}
            width={width}
            color={color}
          />
        );
      case 'peek':
        return selected === undefined ? null : (
          <PeekPanel
            session={selected}
            data={context?.data}
            error={context?.error}
            width={width}
            height={panel}
          />
        );
      case 'answer':
        return selected === undefined ? null : (
          <AnswerPanel
            kind={mode.answer}
            session={selected}
            data={context?.data}
            error={context?.error}
            line={mode.line}
            width={width}
            height={panel}
          />
        );
      case 'dispatch':
        return (
          <DispatchPanel
            color={color}
            form={mode.form}
            field={mode.field}
            cursor={mode.cursor}
            cwd={dispatchFolder()}
            error={mode.error}
            width={width}
            height={panel}
          />
        );
      case 'filter':
        return <FilterPanel line={{ value: filter, cursor: mode.cursor }} width={width} />;
      case 'remove':
        return selected === undefined ? null : <RemovePanel session={selected} width={width} />;
      case 'help':
        return <HelpPanel width={width} height={panel} />;
    }
  }
}
