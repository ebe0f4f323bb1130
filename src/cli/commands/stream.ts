/** Commands that follow a session live: `logs -f` and `attach`. */
import { once } from 'node:events';
import type { BatonEvent } from '../../events/index.js';
import { formatEvent, reasonText } from '../../events/format.js';
import { InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { followSession } from '../follow.js';
import type { Context } from '../context.js';

export interface LogsFlags {
  follow?: boolean;
  json?: boolean;
  after: string;
  /** Only the last N events. */
  lines?: string;
  /** Messages, commands and tool output whole, not cut to one line. */
  full?: boolean;
}

export async function logs(ctx: Context, ref: string, opts: LogsFlags): Promise<void> {
  let after = Number(opts.after);
  if (!Number.isInteger(after) || after < 0)
    throw new InvalidInputError(`--after must be a non-negative integer, got "${opts.after}"`);
  const tail = opts.lines === undefined ? undefined : Number(opts.lines);
  if (tail !== undefined && (!Number.isInteger(tail) || tail < 1))
    throw new InvalidInputError(`--lines must be a whole number of events, 1 or more, got "${opts.lines}"`);
  const api = await client(ctx);
  if (tail !== undefined) {
    const { session } = await api.call('GET /api/sessions/:ref', { params: { ref } });
    after = Math.max(after, session.lastSeq - tail);
  }
  const format = (event: BatonEvent): string =>
    opts.json ? JSON.stringify(event) : formatEvent(event, { full: opts.full === true });
  const print = (event: BatonEvent): void => {
    ctx.out.write(format(event) + '\n');
  };
  if (!opts.follow) {
    // The server answers a page at a time; page on until one comes back empty, writing each page
    // before asking for the next and waiting whenever the output is full (a slow pipe).
    for (let last = after; ;) {
      const { events } = await api.call('GET /api/sessions/:ref/events', {
        params: { ref },
        query: { after: last },
      });
      const final = events.at(-1);
      if (final === undefined) return;
      last = final.seq;
      await write(ctx.out, events.map((event) => format(event) + '\n').join(''));
    }
  }
  ctx.keepAlive = true;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  let last = after;
  const ended = await followSession(
    ctx,
    api,
    ref,
    () => last,
    (event) => {
      last = event.seq;
      print(event);
    },
    controller.signal,
  );
  if (ended !== undefined) {
    ctx.err.write(`(The session is ${ended}; nothing more will come.)\n`);
    ctx.keepAlive = false;
  }
}

/** Writes, then waits while the stream holds more than it wants buffered. */
async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Events replayed on attach unless --all: enough to see where the session is. */
const ATTACH_CONTEXT = 20;

export async function attach(
  ctx: Context,
  ref: string,
  opts: { all?: boolean; bell?: boolean } = {},
): Promise<void> {
  const api = await client(ctx);
  let { session } = await api.call('GET /api/sessions/:ref', { params: { ref } });
  if (session.state === 'completed') {
    ctx.out.write(
      `${session.name} is completed; there is nothing to attach to. Its transcript: baton logs ${session.name}\n`,
    );
    return;
  }
  ctx.keepAlive = true;
  const startedAt = session.lastSeq;
  let last = opts.all === true ? 0 : Math.max(0, startedAt - ATTACH_CONTEXT);
  const skipped = last > 0 ? ` (the last ${ATTACH_CONTEXT} events; --all replays everything)` : '';
  ctx.out.write(
    `Attached to ${session.name} (${session.id})${skipped}. Type a reply and press Enter; y/n answers an approval; Ctrl-C detaches.\n`,
  );
  const controller = new AbortController();
  const { createInterface } = await import('node:readline');
  const input = createInterface({ input: process.stdin, terminal: false });
  let farewell = (): string =>
    `\nDetached from ${session.name}; it goes on. Re-attach with: baton attach ${session.name}\n`;
  const detach = (): void => {
    if (controller.signal.aborted) return;
    controller.abort();
    input.close();
    ctx.out.write(farewell());
  };
  process.once('SIGINT', detach);
  input.on('close', detach);
  input.on('line', (line) => {
    const text = line.trim();
    if (text === '') return;
    send(text).catch((error: unknown) => ctx.err.write(`baton: ${(error as Error).message}\n`));
  });

  const send = async (text: string): Promise<void> => {
    // A fresh client: the supervisor may have restarted on another port since we attached.
    const api = await client(ctx);
    const approval = session.state === 'needs_input' && session.reason?.kind === 'approval';
    const answer = text.toLowerCase();
    if (approval && ['y', 'yes', 'n', 'no'].includes(answer)) {
      ({ session } = await api.call('POST /api/sessions/:ref/approval', {
        params: { ref: session.id },
        body: { decision: answer.startsWith('y') ? 'allow' : 'deny' },
      }));
    } else {
      ({ session } = await api.call('POST /api/sessions/:ref/reply', {
        params: { ref: session.id },
        body: { text },
      }));
    }
  };
  let asked = '';
  const prompt = (): void => {
    if (session.state !== 'needs_input' || session.reason === null) return;
    // Once per question: the replay and the live marker may both come to it.
    const question = JSON.stringify(session.reason);
    if (question === asked) return;
    asked = question;
    const hint = session.reason.kind === 'approval' ? ' [y/n]' : '';
    // The terminal's bell, so a session asking is heard from another window (--no-bell: silent).
    const bell = opts.bell === false ? '' : '\x07';
    ctx.out.write(`${bell}>>> ${session.name} needs input: ${reasonText(session.reason)}${hint}\n`);
  };

  let live = false;
  const ended = await followSession(
    ctx,
    api,
    session.id,
    () => last,
    (event) => {
      last = event.seq;
      ctx.out.write(formatEvent(event) + '\n');
      if (event.type !== 'state.changed') return;
      session = { ...session, state: event.to, reason: event.reason ?? null };
      // Replayed questions were answered long ago; only the one open now is asked.
      if (live || event.seq > startedAt) prompt();
    },
    controller.signal,
    () => {
      live = true;
      prompt();
    },
  );
  if (ended !== undefined) {
    farewell = () => `${session.name} is ${ended}; detached.\n`;
    detach();
  }
}
