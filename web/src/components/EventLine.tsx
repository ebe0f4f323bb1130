/** A compact one-line rendering of an event, for the inbox's context. */
import type { BatonEvent } from '../../../src/events/index.js';
import { oneLine } from '../../../src/events/format.js';

export function EventLine({ event }: { event: BatonEvent }) {
  switch (event.type) {
    case 'message.added':
      return (
        <span className={`line line-${event.role}`}>
          <span className="line-kind">{event.role === 'assistant' ? 'said' : 'you'}</span>{' '}
          {oneLine(event.text, 220)}
        </span>
      );
    case 'thinking.added':
      return (
        <span className="line line-thinking">
          <span className="line-kind">thought</span> {oneLine(event.text, 160)}
        </span>
      );
    case 'tool.started':
      return (
        <span className="line line-tool">
          <span className="line-kind">{event.tool}</span> <code>{oneLine(event.input, 160)}</code>
        </span>
      );
    case 'tool.finished':
      return (
        <span className={`line line-tool ${event.ok ? '' : 'line-error'}`}>
          <span className="line-kind">
            {event.ok ? '✓' : '✗'} {event.tool}
          </span>{' '}
          {event.output ? oneLine(event.output, 160) : event.ok ? 'done' : 'failed'}
        </span>
      );
    case 'error.raised':
      return (
        <span className="line line-error">
          <span className="line-kind">error</span> {oneLine(event.message, 200)}
        </span>
      );
    default:
      return <span className="line muted">{event.type}</span>;
  }
}
