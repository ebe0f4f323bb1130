import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A short random id in a lowercase alphabet without look-alike letters, e.g. `k3x9q2m7ab`. */
export function newId(length = 10): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length];
  return id;
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}
