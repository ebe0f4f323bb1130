/**
 * Opt-in browser notifications when a session starts needing input or becomes ready for review.
 * The choice lives in localStorage; the permission itself is the browser's.
 */
import type { SessionView } from '../../src/api/index.js';
import { reasonText } from '../../src/events/format.js';

const KEY = 'baton.notify';

export function notificationsWanted(): boolean {
  return (
    localStorage.getItem(KEY) === '1' && 'Notification' in window && Notification.permission === 'granted'
  );
}

export async function setNotifications(on: boolean): Promise<boolean> {
  if (!on) {
    localStorage.removeItem(KEY);
    return false;
  }
  if (!('Notification' in window)) return false;
  const permission =
    Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission !== 'granted') return false;
  localStorage.setItem(KEY, '1');
  return true;
}

export function notifyTransition(previous: SessionView | undefined, next: SessionView): void {
  if (previous === undefined || previous.state === next.state || !notificationsWanted()) return;
  let body: string | undefined;
  if (next.state === 'needs_input') body = next.reason ? reasonText(next.reason) : 'needs your input';
  else if (next.state === 'ready_for_review') body = 'is ready for review';
  if (body === undefined) return;
  const notification = new Notification(
    `${next.name} — ${next.state === 'needs_input' ? 'needs input' : 'ready for review'}`,
    { body, tag: `baton-${next.id}` },
  );
  notification.onclick = () => {
    window.focus();
    history.pushState(null, '', `/s/${next.id}`);
    dispatchEvent(new PopStateEvent('popstate'));
  };
}
