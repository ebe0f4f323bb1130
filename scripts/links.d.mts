export function slug(heading: string): string;
export function proseLines(markdown: string): string[];
export function anchorsOf(markdown: string): Set<string>;
export function linksOf(markdown: string): { line: number; target: string }[];
export function markdownFiles(root?: string): string[];
export function checkLinks(root?: string): {
  files: string[];
  links: number;
  anchored: number;
  problems: string[];
};
