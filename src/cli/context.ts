/** What every command gets: where state lives, where it was run from, and where to print. */
export interface Context {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  /** Set by commands that keep running (logs -f, attach) so main does not exit under them. */
  keepAlive?: boolean;
}

export function printJson(ctx: Context, value: unknown): void {
  ctx.out.write(JSON.stringify(value, null, 2) + '\n');
}
