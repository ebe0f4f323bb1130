/**
 * Attached to one session inside the board: the live transcript (the last events, then each new
 * one) followed with `followSession` as `baton attach` does, across supervisor restarts; typing
 * sends a reply, y/n answers an approval; esc goes back to the board.
 */
import { Writable } from 'node:stream';
import { Box, Text, type Key } from 'ink';
import { useEffect, useRef, useState, type MutableRefObject } from 'react';
import type { SessionView } from '../api/index.js';
import { connect, type SupervisorClient } from '../cli/client.js';
import type { Context } from '../cli/context.js';
import { followSession } from '../cli/follow.js';
import { plainDeep } from '../cli/terminal.js';
import { formatEvent } from '../events/format.js';
import { failure } from './actions.js';
import { Field } from './Field.js';
import { editLine, emptyLine } from './line-edit.js';
import { fit } from './lines.js';
import { waitingOn } from './Panels.js';

/** Events replayed on attach: enough to see where the session is, as `baton attach` replays. */
const ATTACH_CONTEXT = 20;
/** Lines kept in memory; the screen shows the last that fit. */
const KEPT_LINES = 500;

export function Attach(props: {
  /** Where the board's one key listener finds this view's handler (set as it renders, so no key is missed). */
  keys: MutableRefObject<((input: string, key: Key) => void) | undefined>;
  ctx: Context;
  api: SupervisorClient | undefined;
  session: SessionView;
  width: number;
  height: number;
  color: boolean;
  onBack: () => void;
}) {
  const { session } = props;
  const [lines, setLines] = useState<string[]>([]);
  const [line, setLineState] = useState(emptyLine);
  const lineRef = useRef(line);
  const setLine = (next: typeof line): void => {
    lineRef.current = next;
    setLineState(next);
  };
  const [note, setNote] = useState(
    'Type a reply and press enter; y/n answers an approval; esc goes back to the board.',
  );
  const latest = useRef(session);
  latest.current = session;

  const onKey = (input: string, key: Key): void => {
    if (key.escape) return props.onBack();
    const edit = editLine(lineRef.current, input, key);
    if (edit.kind === 'other') return;
    setLine(edit.kind === 'submit' ? emptyLine : edit.line);
    if (edit.kind === 'submit') send(edit.line.value);
  };
  props.keys.current = onKey;
  // Gone from the screen, it takes no more keys: the board's listener falls back to the list.
  const { keys } = props;
  useEffect(
    () => () => {
      keys.current = undefined;
    },
    [keys],
  );

  useEffect(() => {
    const controller = new AbortController();
    // followSession reports reconnects on ctx.err; here they belong in the status line, not over the screen.
    const err = new Writable({
      write(chunk: Buffer, _encoding, done) {
        setNote(String(chunk).trim());
        done();
      },
    });
    const ctx: Context = { ...props.ctx, err };
    let last = Math.max(0, session.lastSeq - ATTACH_CONTEXT);
    const pending: string[] = [];
    let flush: ReturnType<typeof setImmediate> | undefined;
    // A replay of many events arrives in one burst: one render for the burst, not one per event.
    const push = (line: string): void => {
      pending.push(line);
      flush ??= setImmediate(() => {
        flush = undefined;
        const batch = pending.splice(0);
        setLines((previous) => [...previous, ...batch].slice(-KEPT_LINES));
      });
    };
    // The board's own client when it has one: no second health check before the first event.
    (props.api === undefined
      ? connect({ home: ctx.home, cwd: ctx.cwd, env: ctx.env, autostart: true })
      : Promise.resolve(props.api)
    )
      .then((api) =>
        followSession(
          ctx,
          api,
          session.id,
          () => last,
          (event) => {
            last = event.seq;
            for (const line of plainDeep(formatEvent(event)).split('\n')) push(line);
          },
          controller.signal,
        ),
      )
      .then((ended) => {
        if (ended !== undefined)
          setNote(`${session.name} is ${ended}; nothing more will come. esc goes back.`);
      })
      .catch((error: unknown) => setNote(failure(error)));
    return () => {
      controller.abort();
      if (flush !== undefined) clearImmediate(flush);
    };
  }, [session.id]);

  const send = (typed: string): void => {
    const answer = typed.trim();
    if (answer === '') return;
    const current = latest.current;
    const approval =
      current.state === 'needs_input' &&
      current.reason?.kind === 'approval' &&
      ['y', 'yes', 'n', 'no'].includes(answer.toLowerCase());
    connect({ home: props.ctx.home, cwd: props.ctx.cwd, env: props.ctx.env, autostart: true })
      .then((api) =>
        approval
          ? api.call('POST /api/sessions/:ref/approval', {
              params: { ref: current.id },
              body: { decision: answer.toLowerCase().startsWith('y') ? 'allow' : 'deny' },
            })
          : api.call('POST /api/sessions/:ref/reply', {
              params: { ref: current.id },
              body: { text: answer },
            }),
      )
      .then(({ session: after }) => setNote(`Sent; ${after.name} is ${after.state.replace(/_/g, ' ')}.`))
      .catch((error: unknown) => setNote(failure(error)));
  };

  const asked = waitingOn(session);
  const room = Math.max(1, props.height - 4 - (asked === '' ? 0 : 1));
  const shown = lines.slice(-room);
  return (
    <Box flexDirection="column" height={props.height}>
      <Text bold wrap="truncate">
        {fit(
          `Attached to ${session.name} — ${session.state.replace(/_/g, ' ')} · ${session.agent} · esc back to the board`,
          props.width,
        )}
      </Text>
      <Box flexDirection="column" height={room}>
        {shown.map((line, i) => (
          <Text key={i} wrap="truncate">
            {fit(line, props.width)}
          </Text>
        ))}
      </Box>
      {asked === '' ? null : (
        <Text bold color={props.color ? 'yellow' : undefined} wrap="truncate">
          {fit(`>>> ${asked}${session.reason?.kind === 'approval' ? ' [y/n]' : ''}`, props.width)}
        </Text>
      )}
      <Text dimColor wrap="truncate">
        {fit(note, props.width)}
      </Text>
      <Box>
        <Text>{'> '}</Text>
        <Field line={line} />
      </Box>
    </Box>
  );
}
