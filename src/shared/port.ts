/** A TCP port from text, or undefined: apart from the config so a supervisor listens before zod loads (decision 346). */
export function parsePort(text: string): number | undefined {
  const port = Number(text.trim());
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? port : undefined;
}
