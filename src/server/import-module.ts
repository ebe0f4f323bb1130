/**
 * Node's own `import()`, in a module of its own: the bundle's files compiled from V8's code cache
 * cannot import (a script `vm` compiles has no loader for it on Node 20), so the one import of a
 * file by its address — the page's server renderer, reloaded when a rebuild replaces it — sits in
 * a file the build leaves to Node (decision 440, "The bundles start from V8's code cache").
 */
export function importModule(url: string): Promise<unknown> {
  return import(url);
}
