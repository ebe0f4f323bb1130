/**
 * The page's side of the watchdog: alerts and budget changes arrive on the board's one stream;
 * views that show cost or alerts fetch again when one does. A new alert is also a toast, and a
 * browser notification when the person turned those on.
 */
import { useSyncExternalStore } from 'react';
import type { WorkspaceEvent } from '../../src/events/workspace.js';
import { notificationsWanted } from './notify.js';
import { toast } from './toast.js';

let version = 0;
const listeners = new Set<() => void>();

export function watchdogEvent(event: WorkspaceEvent): void {
  if (!event.type.startsWith('watchdog.') && !event.type.startsWith('budget.')) return;
  version++;
  for (const listener of listeners) listener();
  if (event.type !== 'watchdog.alert_raised') return;
  const text = `${event.data.name ?? 'Workspace'}: ${event.data.message}`;
  toast(text);
  if (notificationsWanted())
    new Notification(`Baton — ${event.data.rule.replace(/_/g, ' ')}`, {
      body: text,
      tag: `baton-alert-${event.data.alertId}`,
    });
}

/** Changes whenever an alert or a budget changed: a dependency for fetching again. */
export function useWatchdogVersion(): number {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => version,
    () => 0,
  );
}
