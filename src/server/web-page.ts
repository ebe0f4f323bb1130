/**
 * The dashboard's page for a logged-in browser: index.html with the sessions snapshot embedded
 * as JSON and, for the board, the cards already rendered by the UI's own components (the
 * server-render bundle the web build emits, web/dist/ssr/render.js). The first screen then
 * paints from the HTML alone, without waiting for the script, the stream's round trip or
 * React's first render; the script adopts that markup (hydration) and opens the stream.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PageRenderer, StreamSnapshot } from '../api/web.js';
import { createLogger } from '../shared/log.js';
import { WEB_DIST } from './web-static.js';

const log = createLogger('web');
export const RENDERER = join(WEB_DIST, 'ssr', 'render.js');
/** The empty mount point in the built index.html. */
const ROOT = '<div id="root"></div>';

/**
 * The ages on the cards are rendered in the page; the browser refreshes them every 5 s anyway,
 * so a page of an unchanged board may be that old before it is rendered again.
 */
const REUSE_MS = 5_000;

export class PageBuilder {
  private loaded: { mtimeMs: number; renderer: Promise<PageRenderer | undefined> } | undefined;
  /** The last page built, reused while no session changes (a reload, a second tab). */
  private last: { template: string; path: string; showAll: boolean; at: number; html: string } | undefined;
  private generation = 0;

  constructor(private readonly snapshot: () => StreamSnapshot) {}

  /** Loads the bundle ahead of the first page, which would otherwise pay ~50 ms for it. */
  warm(): void {
    void this.renderer();
  }

  /** Called on every session change: the next page is rendered afresh. */
  invalidate(): void {
    this.generation++;
    this.last = undefined;
  }

  /** `showAll`: every card in the markup, not just a first screen (`/?all=1`, for browsers without JavaScript). */
  async build(template: string, path: string, showAll = false): Promise<string> {
    const last = this.last;
    if (
      last !== undefined &&
      last.template === template &&
      last.path === path &&
      last.showAll === showAll &&
      performance.now() - last.at < REUSE_MS
    )
      return last.html;
    // Monotonic, as every deadline here: the wall clock may jump.
    const at = performance.now();
    const generation = this.generation;
    const html = await this.compose(template, path, showAll, this.snapshot());
    // A change while the bundle was loading makes this page stale already: serve it, do not keep it.
    if (generation === this.generation) this.last = { template, path, showAll, at, html };
    return html;
  }

  private async compose(
    template: string,
    path: string,
    showAll: boolean,
    snapshot: StreamSnapshot,
  ): Promise<string> {
    const at = template.indexOf(ROOT);
    if (at === -1) return template;
    const markup = (await this.render(path, showAll, snapshot)) ?? '';
    const root = `<div id="root">${markup}</div><script type="application/json" id="snapshot">${jsonForScript(snapshot)}</script>`;
    // Sliced rather than String.replace, whose replacement string would interpret `$&` and co. in session text.
    return template.slice(0, at) + root + template.slice(at + ROOT.length);
  }

  private async render(
    path: string,
    showAll: boolean,
    snapshot: StreamSnapshot,
  ): Promise<string | undefined> {
    const renderer = await this.renderer();
    try {
      return renderer?.renderPage(path, snapshot, { showAll });
    } catch (error) {
      // The browser renders the page itself from the embedded snapshot, so this costs speed, not the page.
      log.error('server render failed', { path, error: String(error) });
      return undefined;
    }
  }

  /** Reloaded when a rebuild replaces the bundle, so its markup keeps matching the served script. */
  private renderer(): Promise<PageRenderer | undefined> {
    const mtimeMs = existsSync(RENDERER) ? statSync(RENDERER).mtimeMs : 0;
    if (this.loaded?.mtimeMs !== mtimeMs) {
      const url = `${pathToFileURL(RENDERER).href}?v=${mtimeMs}`;
      const renderer =
        mtimeMs === 0
          ? Promise.resolve(undefined)
          : import('./import-module.js')
              .then(async ({ importModule }) => (await importModule(url)) as PageRenderer)
              .catch((error: unknown) => {
                log.error('the server-render bundle did not load', { error: String(error) });
                return undefined;
              });
      this.loaded = { mtimeMs, renderer };
    }
    return this.loaded.renderer;
  }
}

/**
 * JSON safe inside a `<script>` element: session names, prompts and activity are user and
 * agent text, and a `</script>` or `<!--` in them must not end or change the element. Escaping
 * every `<`, `>` and `&` (and the two line separators old parsers treat as newlines) keeps the
 * JSON identical once parsed.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
