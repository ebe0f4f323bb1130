/** The static checks' lanes: each a list of steps, each a program and its arguments. */
export const LANES: string[][][];
/** The niceness the checks run at beside a command. */
export const BESIDE_NICENESS: number;
/**
 * The lanes beside `command` (program and arguments): resolves with its exit code if it failed,
 * else 1 when a check failed, else 0.
 */
export function beside(command: string[], lanes?: string[][][]): Promise<number>;
