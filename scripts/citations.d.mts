export const PLACES: string[];
export const CITATION: RegExp;
export function citations(text: string): string[];
