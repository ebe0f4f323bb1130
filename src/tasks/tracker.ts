/**
 * Tracker references: `#432` (an issue of the repository's tracker), an http(s) URL, or a key
 * like `ABC-12` (Jira, Linear). A link is made only from a URL, or from a reference and the
 * repository's `tasks.trackerUrl` template.
 */
import { InvalidInputError } from '../shared/errors.js';

const ISSUE = /^#[1-9]\d{0,9}$/;
const KEY = /^[A-Z][A-Z0-9]{0,9}-[1-9]\d{0,9}$/;
const MAX_URL = 2000;

/** The reference, trimmed; anything that is none of the three shapes is refused with the shapes named. */
export function parseTrackerRef(text: string): string {
  const ref = text.trim();
  if (ISSUE.test(ref) || KEY.test(ref) || isWebAddress(ref)) return ref;
  throw new InvalidInputError(
    `"${text}" is not a tracker reference. Give an issue number (#432), a key (ABC-12) or an http(s) address.`,
    { reason: 'bad_tracker_ref', tracker: text },
  );
}

/** The reference as a web address, or null when the repository configures no template for it. */
export function trackerLink(ref: string | null, template: string | undefined): string | null {
  if (ref === null) return null;
  if (isWebAddress(ref)) return ref;
  if (template === undefined) return null;
  return template.replaceAll('{id}', encodeURIComponent(ref.replace(/^#/, '')));
}

/**
 * What the URL parser would read as an http(s) address starts so (after the C0 controls and spaces it
 * skips): anything else (`#432`, `ABC-12`) is answered without the parser, whose thrown error cost
 * the board most of its time (decision 420).
 */
// eslint-disable-next-line no-control-regex -- the controls the URL parser skips are the point
const WEB_SCHEME = /^[\x00-\x20]*https?:/i;

function isWebAddress(text: string): boolean {
  if (text.length > MAX_URL || /\s/.test(text) || !WEB_SCHEME.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
