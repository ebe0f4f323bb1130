import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact.js';

const planted: Record<string, string> = {
  anthropic: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789',
  openai: 'sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345',
  github: 'ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123',
  aws: 'AKIAIOSFODNN7EXAMPLE',
  env: 'hunter2-correct-horse',
  bearer: 'abcdefghijklmnopqrstuvwxyz.0123456789',
};

describe('redactSecrets', () => {
  it('removes every planted key shape and keeps the words around them', () => {
    const text = [
      `export ANTHROPIC_API_KEY=${planted.anthropic}`,
      `openai = "${planted.openai}"`,
      `git clone https://${planted.github}@github.invalid/x`,
      `aws_access_key_id ${planted.aws}`,
      `DATABASE_PASSWORD=${planted.env}`,
      `curl -H "Authorization: Bearer ${planted.bearer}"`,
    ].join('\n');
    const out = redactSecrets(text);
    for (const secret of Object.values(planted)) expect(out).not.toContain(secret);
    expect(out).toContain('DATABASE_PASSWORD=[REDACTED:secret-value]');
    expect(out).toContain('Authorization: Bearer [REDACTED:');
    expect(out).toContain('git clone https://');
  });

  it('removes a private key block whole', () => {
    const out = redactSecrets(
      'key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter',
    );
    expect(out).toBe('key:\n[REDACTED:private-key]\nafter');
  });

  it('removes the password of a URL but not the user', () => {
    expect(redactSecrets('postgres://app:s3cretpw@localhost/db')).toBe(
      'postgres://app:[REDACTED:url-password]@localhost/db',
    );
  });

  it('leaves ordinary prose and code alone', () => {
    const text =
      'Keep the old onChange signature; the token count was 1200 and the password field stays optional.';
    expect(redactSecrets(text)).toBe(text);
  });

  it('reads a long word that names secrets over and over in one pass, and still finds the value after it', () => {
    // An agent's output of 1 MB of `TOKENTOKEN…`: the pattern's two stars split it every way
    // (40,000 characters took 1.3 s, 1 MB hours); the test's time limit is what fails then.
    const word = 'TOKEN'.repeat(200_000);
    expect(redactSecrets(word)).toBe(word);
    expect(redactSecrets(`${word} FOO=x,MY_API_KEY=abcdef123456`)).toBe(
      `${word} FOO=x,MY_API_KEY=[REDACTED:secret-value]`,
    );
  });
});
