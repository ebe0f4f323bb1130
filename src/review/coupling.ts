/**
 * Coupling between sessions, as a pure function of what each one changed and what its changed
 * files point at: two sessions are coupled when they change the same file, when a file one
 * changed imports (or, outside JS/TS, names) a file the other changed, or when a test one changed
 * exercises, directly or through one import, a file the other changed. Groups are the connected
 * components, numbered by their oldest member so a number keeps its meaning while sessions come
 * and go after it.
 */

export interface MemberWork {
  id: string;
  name: string;
  /** ISO time of creation: the order of members, and of groups by their oldest. */
  createdAt: string;
  changed: readonly string[];
  /** From a file this session changed to a file of its tree it points at. */
  edges: readonly Edge[];
}

export interface Edge {
  from: string;
  to: string;
  kind: 'imports' | 'tests' | 'mentions';
  /** For a test reaching its target through one import: the file in between. */
  via?: string;
}

export type Reason =
  | { kind: 'same_file'; path: string; sessions: string[]; text: string }
  | {
      kind: 'imports' | 'tests' | 'mentions';
      from: { session: string; path: string };
      to: { session: string; path: string };
      via?: string;
      text: string;
    };

export interface Group {
  number: number;
  /** Member ids, oldest first. */
  members: string[];
  reasons: Reason[];
}

export function coupledGroups(members: readonly MemberWork[]): Group[] {
  const sorted = [...members].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
  );
  const parent = sorted.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const union = (a: number, b: number): void => {
    const [ra, rb] = [find(a), find(b)];
    // The older root stays root, so a component is named by its oldest member.
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const reasons: { pair: [number, number]; reason: Reason }[] = [];

  // Who changed each file.
  const owners = new Map<string, number[]>();
  sorted.forEach((m, i) => m.changed.forEach((path) => owners.set(path, [...(owners.get(path) ?? []), i])));
  for (const [path, who] of owners) {
    if (who.length < 2) continue;
    for (let k = 1; k < who.length; k++) union(who[0]!, who[k]!);
    const names = who.map((i) => sorted[i]!.name);
    reasons.push({
      pair: [who[0]!, who[1]!],
      reason: {
        kind: 'same_file',
        path,
        sessions: names,
        text: `${list(names)} ${names.length === 2 ? 'both' : 'all'} change ${path}`,
      },
    });
  }

  sorted.forEach((m, i) => {
    const seen = new Set<string>();
    for (const edge of m.edges) {
      for (const j of owners.get(edge.to) ?? []) {
        if (j === i) continue;
        const key = `${edge.from}\0${edge.to}\0${j}`;
        if (seen.has(key)) continue;
        seen.add(key);
        union(i, j);
        const other = sorted[j]!;
        const from = { session: m.name, path: edge.from };
        const to = { session: other.name, path: edge.to };
        const text =
          edge.kind === 'tests'
            ? `${edge.from} (${m.name}) tests ${edge.to} (${other.name})${edge.via === undefined ? '' : ` through ${edge.via}`}`
            : edge.kind === 'imports'
              ? `${edge.from} (${m.name}) imports ${edge.to} (${other.name})`
              : `${edge.from} (${m.name}) refers to ${edge.to} (${other.name})`;
        reasons.push({
          pair: [i, j],
          reason: { kind: edge.kind, from, to, ...(edge.via === undefined ? {} : { via: edge.via }), text },
        });
      }
    }
  });

  const groups = new Map<number, Group>();
  sorted.forEach((m, i) => {
    const root = find(i);
    const group = groups.get(root) ?? { number: 0, members: [], reasons: [] };
    group.members.push(m.id);
    groups.set(root, group);
  });
  for (const { pair, reason } of reasons) groups.get(find(pair[0]))!.reasons.push(reason);
  // Roots are the oldest member of each component, so ordering by root orders by oldest member.
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([, g], n) => ({ ...g, number: n + 1 }));
}

function list(names: string[]): string {
  return names.length <= 2
    ? names.join(' and ')
    : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
