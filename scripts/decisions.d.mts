export interface Entry {
  number: number;
  title: string;
  line: number;
  text: string;
}
export function entriesOf(text: string): Entry[];
export function indexOf(text: string): {
  rows: { line: number; number: number; title: string; file: string; anchor: string; status: string }[];
  domains: string[];
  malformed: { line: number; text: string }[];
};
export function rowFor(entry: Pick<Entry, 'number' | 'title'>, domain: string, status?: string): string;
export function nextNumber(root?: string): number;
export function rankDomains(text: string, domains: Map<string, Pick<Entry, 'text'>[]>): string[];
export function checkDecisions(root?: string): string[];
export function moveDecisions(assignments: [number, string][], root?: string): string[];
