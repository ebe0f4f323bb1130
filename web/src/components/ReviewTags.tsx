/** A session's colour in a combined review: one per member, in member order, the same on every page. */
const COLOURS = ['#1971c2', '#c2255c', '#e67700', '#2b8a3e', '#7048e8', '#0c8599', '#862e9c', '#5c940d'];

export function colourOf(names: readonly string[], name: string): string {
  const index = names.indexOf(name);
  return COLOURS[(index < 0 ? 0 : index) % COLOURS.length]!;
}

export function SessionTag({ names, name, id }: { names: readonly string[]; name: string; id?: string }) {
  const style = { color: colourOf(names, name), borderColor: colourOf(names, name) };
  if (id === undefined) {
    return (
      <span className="session-tag" style={style}>
        {name}
      </span>
    );
  }
  // A link to the session's transcript.
  return (
    <a
      className="session-tag"
      style={style}
      href={`/s/${encodeURIComponent(id)}`}
      data-testid="session-tag"
      title={`${name}: open its transcript`}
    >
      {name}
    </a>
  );
}
