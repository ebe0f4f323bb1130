import { describe, expect, it } from 'vitest';
import { PreparedJson } from './prepared-json.js';

describe('a prepared JSON answer', () => {
  const value = {
    project: 'répertoire',
    columns: [{ column: 'ready', tasks: [{ id: 1, title: '“quoted”' }] }],
  };

  it('is the bytes JSON.stringify writes, in UTF-8, made once', () => {
    const answer = new PreparedJson(value);
    expect(answer.bytes.toString('utf8')).toBe(JSON.stringify(value));
    expect(answer.bytes).toBe(answer.bytes);
    expect(answer.value).toBe(value);
  });

  it('has one strong tag for the same bytes and another for other bytes', () => {
    const tag = new PreparedJson(value).etag;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(new PreparedJson(structuredClone(value)).etag).toBe(tag);
    expect(new PreparedJson({ ...value, project: 'other' }).etag).not.toBe(tag);
  });

  it('matches an If-None-Match naming its tag, weakly or among others, or `*`', () => {
    const answer = new PreparedJson(value);
    const tag = answer.etag;
    expect(answer.matches(tag)).toBe(true);
    expect(answer.matches(`W/${tag}`)).toBe(true);
    expect(answer.matches(`"other", ${tag}`)).toBe(true);
    expect(answer.matches('*')).toBe(true);
    expect(answer.matches(undefined)).toBe(false);
    expect(answer.matches('"other"')).toBe(false);
    expect(answer.matches(tag.slice(1, -1))).toBe(false);
  });
});
