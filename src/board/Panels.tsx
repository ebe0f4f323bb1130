/**
 * The panel under the list: peek, the reply and approval forms (with the question and what led
 * to it), dispatch, filter, remove and help. Each is at most `height` lines and `width` columns.
 */
import { Box, Text } from 'ink';
import type { SessionView } from '../api/index.js';
import { evidenceLines } from '../cli/render.js';
import { formatEvent, formatUsd, oneLine, reasonText } from '../events/format.js';
import type { PeekData, DispatchForm } from './actions.js';
import { removeWarning } from './actions.js';
import { Field } from './Field.js';
import type { Line } from './line-edit.js';
import { fit, HELP_LINES } from './lines.js';

const rule = (title: string, width: number): string =>
  [...`── ${title} ${'─'.repeat(width)}`].slice(0, width).join('');

function Lines({ lines, width, height }: { lines: string[]; width: number; height: number }) {
  return (
    <>
      {lines.slice(0, Math.max(0, height)).map((line, i) => (
        <Text key={i} wrap="truncate">
          {fit(line, width)}
        </Text>
      ))}
    </>
  );
}

/** The question or approval a session waits on, in one line; empty when it waits on nothing. */
export function waitingOn(s: SessionView): string {
  if (s.state !== 'needs_input' || s.reason === null) return '';
  return `${s.reason.kind === 'approval' ? 'Approval' : 'Question'}: ${reasonText(s.reason)}`;
}

function contextLines(data: PeekData | undefined, error: string | undefined): string[] {
  if (error !== undefined) return [`(could not load: ${error})`];
  if (data === undefined) return ['loading…'];
  return data.context.map((event) => '  ' + oneLine(formatEvent(event), 200));
}

export function PeekPanel({
  session,
  data,
  error,
  width,
  height,
}: {
  session: SessionView;
  data: PeekData | undefined;
  error: string | undefined;
  width: number;
  height: number;
}) {
  const view = data?.view;
  const lines = [
    `${session.name} — ${session.state.replace(/_/g, ' ')}${session.pinned ? ', pinned' : ''} · ${session.agent}${session.model === null ? '' : ` (${session.model})`} · ${session.branch}`,
    `task: ${oneLine(session.prompt, 300)}`,
    ...(waitingOn(session) === '' ? [] : [waitingOn(session)]),
    // Why it failed, in the agent's own words when it gave them (decision 155).
    ...(session.state === 'failed' && session.reason !== null
      ? [`failed: ${reasonText(session.reason)}`]
      : []),
    // The same figure as `baton cost`, `ls` and the page (decision 154).
    ...(session.inputTokens + session.outputTokens === 0
      ? []
      : [`usage: ${session.inputTokens} in, ${session.outputTokens} out, ${formatUsd(session.costUsd)}`]),
    ...(view?.currentStep ? [`now: ${oneLine(view.currentStep, 300)}`] : []),
    // What Baton checked of the work, as `baton peek` says it (decision 290).
    ...(session.evidence === undefined ? [] : evidenceLines(session.evidence).map((l) => l.trim())),
    ...(view === undefined
      ? []
      : [
          `files changed: ${
            view.filesChanged.length === 0
              ? 'none'
              : view.filesChanged
                  .slice(0, 6)
                  .map((f) => f.path)
                  .join(', ')
          }${view.filesChanged.length > 6 ? ', …' : ''}`,
        ]),
    'last events:',
    ...contextLines(data, error),
  ];
  return (
    <Box flexDirection="column" height={height}>
      <Text dimColor>{rule('peek (space closes, enter attaches)', width)}</Text>
      <Lines lines={lines} width={width} height={height - 1} />
    </Box>
  );
}

/** Reply, approve or deny: the question and its context above, the input (reply text or deny reason) below. */
export function AnswerPanel(props: {
  kind: 'reply' | 'allow' | 'deny';
  session: SessionView;
  data: PeekData | undefined;
  error: string | undefined;
  line: Line;
  width: number;
  height: number;
}) {
  const { session } = props;
  const title =
    props.kind === 'reply'
      ? `reply to ${session.name}`
      : props.kind === 'allow'
        ? `approve for ${session.name}`
        : `deny for ${session.name}`;
  const asked = waitingOn(session);
  const prompt = props.kind === 'reply' ? 'reply> ' : props.kind === 'deny' ? 'reason (optional)> ' : '';
  const hint = props.kind === 'allow' ? 'enter approves, esc cancels' : 'enter sends, esc cancels';
  const context = contextLines(props.data, props.error);
  const room = Math.max(0, props.height - 4);
  return (
    <Box flexDirection="column" height={props.height}>
      <Text dimColor>{rule(`${title} (${hint})`, props.width)}</Text>
      <Text wrap="truncate" bold>
        {fit(
          asked === ''
            ? `${session.name} is ${session.state.replace(/_/g, ' ')} and asks nothing; a reply starts its next turn.`
            : asked,
          props.width,
        )}
      </Text>
      <Lines lines={context.slice(-room)} width={props.width} height={room} />
      {props.kind === 'allow' ? (
        <Text>{fit('Approve this call? enter approves, esc cancels', props.width)}</Text>
      ) : (
        <Box>
          <Text>{prompt}</Text>
          <Field line={props.line} />
        </Box>
      )}
    </Box>
  );
}

/** The dispatch form's fields, in tab order. */
export const FIELDS = ['prompt', 'agent', 'name'] as const;

export function DispatchPanel(props: {
  color: boolean;
  form: DispatchForm;
  field: number;
  cursor: number;
  cwd: string;
  error: string;
  width: number;
  height: number;
}) {
  const labels = {
    prompt: 'prompt',
    // Blank runs the configured agent, else the one installed (decision 185). The agents are too
    // many to list on an 80-column line; a name it does not know is refused with the list.
    agent: 'agent (blank: the default)',
    name: 'name (optional)',
  };
  return (
    <Box flexDirection="column" height={props.height}>
      <Text dimColor>
        {rule('dispatch a session (tab next field, enter on the last dispatches, esc cancels)', props.width)}
      </Text>
      <Text wrap="truncate">{fit(`in ${props.cwd}`, props.width)}</Text>
      {FIELDS.map((field, i) => (
        <Box key={field}>
          <Text bold={i === props.field}>{`${i === props.field ? '›' : ' '} ${labels[field]}: `}</Text>
          {i === props.field ? (
            <Field line={{ value: props.form[field], cursor: props.cursor }} />
          ) : (
            <Text wrap="truncate">{props.form[field]}</Text>
          )}
        </Box>
      ))}
      {props.error === '' ? null : (
        <Text color={props.color ? 'red' : undefined} bold wrap="truncate">
          {fit(props.error, props.width)}
        </Text>
      )}
    </Box>
  );
}

export function FilterPanel({ line, width }: { line: Line; width: number }) {
  return (
    <Box flexDirection="column" height={2}>
      <Text dimColor>{rule('filter by name, task, agent, state (enter keeps, esc clears)', width)}</Text>
      <Box>
        <Text>/ </Text>
        <Field line={line} />
      </Box>
    </Box>
  );
}

export function RemovePanel({ session, width }: { session: SessionView; width: number }) {
  return (
    <Box flexDirection="column" height={5}>
      <Text dimColor>{rule('remove', width)}</Text>
      <Lines lines={removeWarning(session)} width={width} height={4} />
    </Box>
  );
}

export function HelpPanel({ width, height }: { width: number; height: number }) {
  return (
    <Box flexDirection="column" height={height}>
      <Text dimColor>{rule('keys (? or esc closes)', width)}</Text>
      <Lines lines={HELP_LINES} width={width} height={height - 1} />
    </Box>
  );
}
