/** The filter box and project picker, shared by the shell and the pages it filters. */
export interface Filter {
  text: string;
  project: string;
}

/** Sessions matching the filter box and project picker. */
export function matches(
  filter: Filter,
  s: { name: string; prompt: string; project: string; agent: string; activity: string | null },
): boolean {
  if (filter.project !== '' && s.project !== filter.project) return false;
  const text = filter.text.trim().toLowerCase();
  if (text === '') return true;
  return [s.name, s.prompt, s.project, s.agent, s.activity ?? ''].some((field) =>
    field.toLowerCase().includes(text),
  );
}
