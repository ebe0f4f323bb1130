/** The static checks' lanes: each a list of steps, each a program and its arguments. */
export const LANES: string[][][];
