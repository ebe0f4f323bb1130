/** What the session manager is made with, and the events it emits. */
import type { BatonEvent } from '../events/index.js';
import type { WorkspaceBus } from '../bus/index.js';
import type { Db } from '../store/db.js';
import type { ReviewCapacity } from './review-capacity.js';

export interface ManagerOptions {
  home: string;
  db: Db;
  maxConcurrent: number;
  /** The user's environment, the base of each session's own (see environment.ts). */
  env: NodeJS.ProcessEnv;
  /** Keep one host process loaded and waiting, to start sessions faster (default true). */
  spareHost?: boolean;
  /** A cap on the work waiting for review, which holds new dispatches queued (review-capacity.ts); none by default. */
  reviewCapacity?: ReviewCapacity | undefined;
  /** The workspace bus; one is made on the same database when not given. */
  bus?: WorkspaceBus;
}

export interface ManagerEvents {
  event: [sessionId: string, event: BatonEvent];
  session: [sessionId: string];
}
