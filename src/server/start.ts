/**
 * The bundled supervisor's entry (dist/bundle/supervisor.js): its files compile from V8's code
 * cache, then the supervisor loads (decision 440, "The bundles start from V8's code cache"). The
 * supervisor itself is imported only after, so that its files pass through the cache.
 */
import { startCached } from '../shared/code-cache.js';

startCached(import.meta.url, () => import('./main.js'));
