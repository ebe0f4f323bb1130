/**
 * The entry of the CLI's CommonJS bundle (dist/cli-commands/cli.js), which `bin/baton` starts for
 * every command but the bare `baton` of the terminal board: its files compile from V8's code cache,
 * then the CLI runs (decision 441, "A command starts from the CommonJS bundle"). The board's own
 * packages wait on a WebAssembly load at the top of a module, which CommonJS cannot express, so it
 * stays in the ES module bundle (dist/cli-bundle/).
 */
import { startCached } from '../shared/code-cache.js';

startCached(import.meta.url, async () => (await import('./main.js')).main(process.argv));
