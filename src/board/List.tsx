/** The board's list screen: header, grouped sessions in a scrolling window, and the footer. */
import { Box, Text } from 'ink';
import { memo } from 'react';
import type { SessionView } from '../api/index.js';
import { columnsFor, fit, groupColor, keyHints, sessionLine, workspaceLine } from './lines.js';
import type { ConflictBadge } from '../api/conflicts.js';
import type { ConnectionStatus, FeedEvent, Row } from './model.js';

export function Header(props: {
  scope: string;
  count: number;
  total: number;
  filter: string;
  status: ConnectionStatus;
  width: number;
  color: boolean;
}) {
  const status = statusText(props.status);
  const shown =
    props.count === props.total ? `${props.total} sessions` : `${props.count} of ${props.total} sessions`;
  const filter = props.filter === '' ? '' : `  filter: ${props.filter}`;
  const left = fit(
    `Baton · ${props.scope} · ${shown}${filter}`,
    Math.max(0, props.width - status.length - 1),
  );
  const gap = ' '.repeat(Math.max(1, props.width - left.length - status.length));
  const statusColor = props.color ? (props.status.kind === 'live' ? 'green' : 'yellow') : undefined;
  return (
    <Text wrap="truncate">
      <Text bold>{left}</Text>
      {gap}
      <Text color={statusColor} bold={props.status.kind !== 'live'}>
        {status}
      </Text>
    </Text>
  );
}

function statusText(status: ConnectionStatus): string {
  switch (status.kind) {
    case 'connecting':
      return 'connecting…';
    case 'live':
      return '● live';
    case 'reconnecting':
      return 'reconnecting…';
    case 'stopped':
      return 'supervisor stopped (R restarts)';
  }
}

export interface ListProps {
  rows: readonly Row[];
  top: number;
  height: number;
  selectedId: string | undefined;
  manyProjects: boolean;
  now: number;
  width: number;
  color: boolean;
  empty: string;
  conflicts: Readonly<Record<string, ConflictBadge>>;
}

/** The window of rows from `top`, `height` lines tall (padded, so the screen below stays put). */
export function SessionList(props: ListProps) {
  const sessions = props.rows.flatMap((r) => (r.session === undefined ? [] : [r.session]));
  const columns = columnsFor(sessions, props.width, props.manyProjects);
  const visible = props.rows.slice(props.top, props.top + props.height);
  const lines = visible.map((row, i) => {
    if (row.session === undefined) {
      const title = row.title ?? '';
      return (
        <Text key={`g${props.top + i}`} bold color={groupColor(title, props.color)} wrap="truncate">
          {fit(title, props.width)}
        </Text>
      );
    }
    const selected = row.session.id === props.selectedId;
    return (
      <SessionRow
        key={row.session.id}
        session={row.session}
        selected={selected}
        text={sessionLine(
          row.session,
          selected,
          columns,
          props.manyProjects,
          props.now,
          props.width,
          props.conflicts[row.session.id],
        )}
      />
    );
  });
  return (
    <Box flexDirection="column" height={props.height}>
      {props.rows.length === 0 ? <Text wrap="truncate">{fit(props.empty, props.width)}</Text> : lines}
    </Box>
  );
}

/** A row re-renders only when its text or selection changes, not on every frame of the board. */
const SessionRow = memo(function SessionRow({
  session,
  selected,
  text,
}: {
  session: SessionView;
  selected: boolean;
  text: string;
}) {
  return (
    <Text
      inverse={selected}
      wrap="truncate"
      dimColor={!selected && (session.state === 'completed' || session.state === 'stopped')}
    >
      {text}
    </Text>
  );
});

/** The latest workspace events of every domain, newest last. */
export function WorkspaceFeed({
  events,
  height,
  width,
  color,
}: {
  events: readonly FeedEvent[];
  height: number;
  width: number;
  color: boolean;
}) {
  if (height <= 0) return null;
  const shown = events.slice(-(height - 1));
  return (
    <Box flexDirection="column" height={height}>
      <Text dimColor wrap="truncate">
        {[...`── workspace ${'─'.repeat(width)}`].slice(0, width).join('')}
      </Text>
      {shown.length === 0 ? (
        <Text dimColor wrap="truncate">
          {fit('Nothing has happened since the board opened.', width)}
        </Text>
      ) : (
        shown.map((event) => (
          <Text
            key={event.seq}
            color={color && event.type.startsWith('radar.') ? 'magenta' : undefined}
            wrap="truncate"
          >
            {workspaceLine(event, width)}
          </Text>
        ))
      )}
    </Box>
  );
}

export function Footer({ note, width, color }: { note: string; width: number; color: boolean }) {
  return (
    <Box flexDirection="column">
      <Text color={color ? 'cyan' : undefined} wrap="truncate">
        {fit(note, width)}
      </Text>
      <Text dimColor wrap="truncate">
        {keyHints(width)}
      </Text>
    </Box>
  );
}
