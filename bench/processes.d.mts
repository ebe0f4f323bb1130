/** bench/processes.mjs, typed for its test. */
export function processStart(pid: number): string | undefined;
export function endProcess(pid: number, graceMs?: number, started?: string): Promise<void>;
