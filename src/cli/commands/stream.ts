/** Commands that follow a session live: `logs -f` and `attach`. */
import { once } from 'node:events';
import type { BatonEvent } from '../../events/index.js';
import { formatEvent, reasonText } from '../../events/format.js';
import { InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { followSession } from '../follow.js';
import type { Context } from '../context.js';

export async function logs(ctx: Context, ref: string, opts: { follow?: boolean; json?: boolean; after: string }): Promise<void> {
  const after = Number(opts.after);
  if (!Number.isInteger(after) || after < 0) throw new InvalidInputError(`--after must be a non-negative integer, got "${opts.after}"`);
  const api = await client(ctx);
  const print = (event: BatonEvent): void => {
    ctx.out.write((opts.json ? JSON.stringify(event) : formatEvent(event)) + '\n');
  };
  if (!opts.follow) {
    // The server answers a page at a time; page on until one comes back empty, writing each page
    // before asking for the next and waiting whenever the output is full (a slow pipe).
    for (let last = after; ; ) {
      const { events } = await api.call('GET /api/sessions/:ref/events', { params: { ref }, query: { after: last } });
      const final = events.at(-1);
      if (final === undefined) return;
      last = final.seq;
      await write(ctx.out, events.map((event) => (opts.json ? JSON.stringify(event) : formatEvent(event)) + '\n').join(''));
    }
  }
  ctx.keepAlive = true;
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  let last = after;
  await followSession(ctx, api, ref, () => last, (event) => {
    last = event.seq;
    print(event);
  }, controller.signal);
}

/** Writes, then waits while the stream holds more than it wants buffered. */
async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

export async function attach(ctx: Context, ref: string): Promise<void> {
  const api = await client(ctx);
  let { session } = await api.call('GET /api/sessions/:ref', { params: { ref } });
  ctx.keepAlive = true;
  ctx.out.write(`Attached to ${session.name} (${session.id}). Type a reply and press Enter; y/n answers an approval; Ctrl-C detaches.\n`);
  const controller = new AbortController();
  const { createInterface } = await import('node:readline');
  const input = createInterface({ input: process.stdin, terminal: false });
  const detach = (): void => {
    if (controller.signal.aborted) return;
    controller.abort();
    input.close();
    ctx.out.write(`\nDetached from ${session.name}; it goes on. Re-attach with: baton attach ${session.name}\n`);
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
      ({ session } = await api.call('POST /api/sessions/:ref/approval', { params: { ref: session.id }, body: { decision: answer.startsWith('y') ? 'allow' : 'deny' } }));
    } else {
      ({ session } = await api.call('POST /api/sessions/:ref/reply', { params: { ref: session.id }, body: { text } }));
    }
  };

  let last = 0;
  await followSession(
    ctx,
    api,
    session.id,
    () => last,
    (event) => {
      last = event.seq;
      ctx.out.write(formatEvent(event) + '\n');
      if (event.type === 'state.changed') {
        session = { ...session, state: event.to, reason: event.reason ?? null };
        if (event.to === 'needs_input' && event.reason) {
          const hint = event.reason.kind === 'approval' ? ' [y/n]' : '';
          ctx.out.write(`>>> ${session.name} needs input: ${reasonText(event.reason)}${hint}\n`);
        }
      }
    },
    controller.signal,
  );
}
