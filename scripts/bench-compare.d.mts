export interface Figure {
  section: string;
  name: string;
  value: number;
  unit: string;
  floor: number;
  floorName: string;
  ratio: number;
  better: 'lower' | 'higher';
  goal?: number;
}
export interface Run {
  sections?: string[];
  figures: Figure[];
}
export interface Row {
  name: string;
  status: 'worse' | 'better' | 'same' | 'missing' | 'skipped' | 'new';
  baseline?: Figure;
  current?: Figure;
  change?: number;
}
export const TOLERANCE: number;
export const SLACK: number;
export function worsening(baseline: number, current: number, better?: 'lower' | 'higher'): number;
export function compare(
  current: Run,
  baseline: Run,
  tolerance?: number,
  slack?: number,
): { rows: Row[]; failed: Row[] };
export function table(rows: Row[]): string;
export function merged(baseline: Run | undefined, current: Run): Run;
