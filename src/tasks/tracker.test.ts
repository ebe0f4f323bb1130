import { describe, expect, it } from 'vitest';
import { parseTrackerRef, trackerLink } from './tracker.js';

describe('tracker references', () => {
  it('takes an issue number, a key and a web address', () => {
    expect(parseTrackerRef(' #432 ')).toBe('#432');
    expect(parseTrackerRef('ABC-12')).toBe('ABC-12');
    expect(parseTrackerRef('https://example.com/issues/7')).toBe('https://example.com/issues/7');
  });

  it('refuses what is not a reference, naming the shapes it takes', () => {
    for (const bad of [
      '432',
      '#',
      '#0',
      'abc-12',
      'ABC12',
      'ftp://x/y',
      'javascript:alert(1)',
      'see #432',
      '',
    ]) {
      expect(() => parseTrackerRef(bad), bad).toThrow(/is not a tracker reference.*#432.*ABC-12.*http/);
    }
  });

  it('links a web address as itself, and a reference through the template only', () => {
    expect(trackerLink('https://x.test/1', undefined)).toBe('https://x.test/1');
    expect(trackerLink('#432', undefined)).toBeNull();
    expect(trackerLink('#432', 'https://github.test/acme/app/issues/{id}')).toBe(
      'https://github.test/acme/app/issues/432',
    );
    expect(trackerLink('ABC-12', 'https://acme.test/browse/{id}')).toBe('https://acme.test/browse/ABC-12');
    expect(trackerLink(null, 'https://acme.test/browse/{id}')).toBeNull();
  });

  it('tells a web address as the URL parser reads one, without asking it for a reference (decision 420)', () => {
    // Whatever the parser takes for http(s): any case, no slashes, leading controls it skips.
    for (const web of ['HTTPS://X.test/a', 'http:x.test/1', '\x01http://a.test/2'])
      expect(trackerLink(web, 'https://t.test/{id}'), JSON.stringify(web)).toBe(web);
    for (const other of ['https://', 'ftp://a.test', 'ABC-12'])
      expect(trackerLink(other, undefined), other).toBeNull();
  });
});
