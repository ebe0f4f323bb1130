export interface FolderPlace {
  level: number;
  layer: string;
  why: string;
  open?: boolean;
  only?: string[];
  openTo?: string[];
  /** The modules other folders may import, by name without extension (default: index). */
  faces?: string[];
}
export const LAYERS: {
  name: string;
  about: string;
  folders: Record<string, Omit<FolderPlace, 'level' | 'layer'>>;
}[];
export const FOLDERS: Map<string, FolderPlace>;
export const KNOWN_REACHES: { file: string; target: string }[];
export function folderOf(path: string): string | undefined;
export function breach(file: string, target: string): string | undefined;
export function unplacedFolders(): string[];
export function diagram(): string;
export function imports(): { file: string; target: string }[];
export function reaches(): { file: string; target: string }[];
export function height(): number;
