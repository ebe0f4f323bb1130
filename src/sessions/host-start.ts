/**
 * The bundled session host's entry (dist/bundle/host-main.js): its files compile from V8's code
 * cache, then the host loads (decision 440, "The bundles start from V8's code cache"). The host
 * itself is imported only after, so that its files pass through the cache.
 */
import { startCached } from '../shared/code-cache.js';

startCached(import.meta.url, () => import('./host-main.js'));
