/**
 * Secrets out of everything Baton exports (transcripts, Markdown, handoff packs, search
 * snippets): vendor key shapes, bearer tokens, private key blocks, and the values of
 * `KEY=value` lines whose name says secret. What is found becomes `[REDACTED:<kind>]`, so a
 * reader still sees that something was there and what kind of thing it was.
 */

interface Rule {
  kind: string;
  pattern: RegExp;
  /** Which capture group holds the secret; the whole match when absent. */
  group?: number;
}

const RULES: readonly Rule[] = [
  {
    kind: 'private-key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'slack-token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { kind: 'google-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'bearer-token', pattern: /\b(Bearer|token)\s+([A-Za-z0-9._~+/=-]{20,})/gi, group: 2 },
  // `.env` lines and their JSON/YAML cousins: a name that says secret, then its value. The name
  // is checked by a lookahead and then taken whole: written as `[A-Z0-9_]*(?:SECRET|…)[A-Z0-9_]*`
  // the two stars split a long word every way, and an agent's 32,000-character `TOKENTOKEN…`
  // output held the supervisor's ingest for about a second per event (40,000 characters: 1.3 s).
  {
    kind: 'secret-value',
    pattern:
      /\b(?=[A-Z0-9_]*?(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?))([A-Z0-9_]+)(["']?\s*[:=]\s*["']?)([^\s"'`]{6,})/gi,
    group: 3,
  },
  { kind: 'url-password', pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]{3,})(@)/gi, group: 2 },
];

/** `text` with every secret it holds replaced by `[REDACTED:<kind>]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.pattern, (match: string, ...groups: unknown[]) => {
      if (rule.group === undefined) return `[REDACTED:${rule.kind}]`;
      const secret = groups[rule.group - 1];
      if (typeof secret !== 'string' || secret.startsWith('[REDACTED')) return match;
      const start = match.lastIndexOf(secret);
      return `${match.slice(0, start)}[REDACTED:${rule.kind}]${match.slice(start + secret.length)}`;
    });
  }
  return out;
}
