/** The one way a command reaches the supervisor: connect, starting it when it is not running. */
import { connect, type SupervisorClient } from './client.js';
import type { Context } from './context.js';

export function client(ctx: Context): Promise<SupervisorClient> {
  return connect({ home: ctx.home, cwd: ctx.cwd, env: ctx.env, autostart: true });
}
