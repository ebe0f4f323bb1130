/** Transient messages at the bottom of the page: what an action did, or why it failed. */
import { useSyncExternalStore } from 'react';

export interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

export function toast(text: string, kind: Toast['kind'] = 'info'): void {
  const item = { id: nextId++, text, kind };
  toasts = [...toasts, item].slice(-4);
  emit();
  setTimeout(
    () => {
      toasts = toasts.filter((t) => t !== item);
      emit();
    },
    kind === 'error' ? 8000 : 3500,
  );
}

export function useToasts(): Toast[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => toasts,
    () => toasts,
  );
}
