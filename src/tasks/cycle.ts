/** Dependency cycles: checked by the service on this machine's SQLite, and again by the shared store under its lock. */

/** The cycle `id` waiting for `after` would close, given the other tasks' edges (`id`'s own are replaced), or undefined. */
export function dependencyCycle(
  id: number,
  after: readonly number[],
  edges: readonly { task_id: number; after_id: number }[],
): number[] | undefined {
  const next = new Map<number, number[]>();
  for (const edge of edges)
    if (edge.task_id !== id) next.set(edge.task_id, [...(next.get(edge.task_id) ?? []), edge.after_id]);
  next.set(id, [...after]);
  const path: number[] = [];
  const seen = new Set<number>();
  const walk = (node: number): number[] | undefined => {
    if (node === id && path.length > 0) return [...path, id];
    if (seen.has(node)) return undefined;
    seen.add(node);
    path.push(node);
    for (const to of next.get(node) ?? []) {
      const cycle = walk(to);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    return undefined;
  };
  return walk(id);
}
