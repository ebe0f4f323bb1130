/**
 * `baton ui`: opens the web dashboard. The CLI holds the token; the browser gets only a one-time
 * login URL, which the supervisor swaps for a cookie of its own.
 */
import { spawn } from 'node:child_process';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

export interface UiOptions {
  /** Commander's `--no-open` sets this to false. */
  open: boolean;
  json?: boolean;
}

export async function ui(ctx: Context, options: UiOptions): Promise<void> {
  const api = await client(ctx);
  const login = await api.call('POST /api/ui/login');
  if (options.json) return printJson(ctx, login);
  const opened =
    options.open && ctx.env.BATON_NO_BROWSER === undefined && (await openBrowser(login.url, ctx.env));
  const tried = options.open && ctx.env.BATON_NO_BROWSER === undefined;
  ctx.out.write(
    opened
      ? `Opened the dashboard in your browser.\n`
      : tried
        ? `Could not open a browser here; open the dashboard yourself:\n`
        : `Open the dashboard:\n`,
  );
  ctx.out.write(
    `  ${login.url}\n  (the link works once, within a minute; run \`baton ui\` again for a new one)\n`,
  );
}

/** An opener still running after this long has handed the page to a browser that it waits on. */
const OPENER_VERDICT_MS = 3_000;

/**
 * Hands the URL to the desktop's opener. True only when it says it opened it: an opener that
 * exists but finds no browser (a server, a container) exits non-zero, and we say so.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const command =
    env.BATON_OPENER ??
    (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  return new Promise((resolve) => {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true, env });
    const timer = setTimeout(() => {
      child.unref();
      resolve(true);
    }, OPENER_VERDICT_MS);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}
