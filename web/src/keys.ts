/**
 * Keyboard shortcuts: pages register a keymap while mounted; the newest one wins. Keys typed
 * into a field are left alone, except Escape, which leaves the field.
 */
import { useEffect, useRef } from 'react';

export type Keymap = Partial<Record<string, (event: KeyboardEvent) => void>>;

const stack: { current: Keymap }[] = [];

export function useKeys(map: Keymap): void {
  const ref = useRef(map);
  ref.current = map;
  useEffect(() => {
    stack.push(ref);
    return () => {
      stack.splice(stack.indexOf(ref), 1);
    };
  }, []);
}

function editable(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  );
}

export function installKeyboard(): () => void {
  const onKey = (event: KeyboardEvent): void => {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    if (editable(event.target)) {
      if (event.key === 'Escape') (event.target as HTMLElement).blur();
      return;
    }
    for (let i = stack.length - 1; i >= 0; i--) {
      const handler = stack[i]?.current[event.key];
      if (handler !== undefined) {
        event.preventDefault();
        handler(event);
        return;
      }
    }
  };
  addEventListener('keydown', onKey);
  return () => removeEventListener('keydown', onKey);
}

/** Set by `r` on a list, read by the session page: open with the reply box focused. */
export const pendingFocus = { reply: false };
