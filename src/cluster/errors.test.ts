import { describe, expect, test } from 'vitest';
import { redact, StoreUrlError } from './errors.js';

describe('redacting a store URL', () => {
  test('hides the whole password, even one holding an unencoded @', () => {
    expect(redact('postgres://baton:s3cret@db.internal:5432/baton')).toBe(
      'postgres://baton:***@db.internal:5432/baton',
    );
    const redacted = redact('postgres://baton:p@ss@word@db.internal/baton');
    expect(redacted).toBe('postgres://baton:***@db.internal/baton');
    expect(redacted).not.toMatch(/ss|word/);
  });

  test('hides a password given as a query parameter, by key, and keeps the rest', () => {
    const redacted = redact(
      'postgres://baton@db.internal/baton?sslmode=require&password=hunter2&sslpassword=k3y',
    );
    expect(redacted).toBe('postgres://baton@db.internal/baton?sslmode=require&password=***&sslpassword=***');
    expect(redacted).not.toMatch(/hunter2|k3y/);
  });

  test('leaves a URL without a secret as it is, socket folders unencoded, and hides the secrets of one that does not parse', () => {
    expect(redact('postgres://baton@db.internal/baton')).toBe('postgres://baton@db.internal/baton');
    // A password left unencoded, with the characters that end a URL's authority in it.
    for (const password of ['a/b', 'x?y', 'p#q', 'm@n/o'])
      expect(redact(`postgres://baton:${password}@db.internal/baton`)).toBe(
        'postgres://baton:***@db.internal/baton',
      );
    expect(redact('postgres:///baton?host=/run/pg&password=x')).toBe(
      'postgres:///baton?host=/run/pg&password=***',
    );
    expect(redact('postgres://baton:p@ss word@db internal/baton?password=x')).toBe(
      'postgres://baton:***@db internal/baton?password=***',
    );
  });

  test('a refused store URL carries only the redacted value', () => {
    const error = new StoreUrlError(
      'BATON_STORE',
      'mysql://baton:p@ss@db/baton?password=hunter2',
      'the scheme is mysql, not postgres',
    );
    expect(JSON.stringify(error.data)).not.toMatch(/ss@|hunter2/);
  });
});
