/** Finding the `claude` executable: explicit option, then $BATON_CLAUDE_PATH, then PATH, then the SDK's own. */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findExecutable, isExecutable } from '../locate.js';

export function findClaude(explicit: unknown, env: NodeJS.ProcessEnv, cwd: string): string {
  return findExecutable(
    {
      agent: 'claude',
      command: 'claude',
      option: 'claudePath',
      envVar: 'BATON_CLAUDE_PATH',
      product: 'Claude Code',
      install:
        'Install Claude Code (`npm install -g @anthropic-ai/claude-code`, then run `claude` once to sign in)',
      fallback: bundledClaude,
    },
    explicit,
    env,
    cwd,
  );
}

/**
 * The binary the Agent SDK ships in its platform package. It is the exact version the SDK was
 * built against, so it is a sound fallback for people who have not installed Claude Code
 * themselves (they still need a key or a login for it to be useful).
 */
function bundledClaude(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve(
      `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`,
    );
    const binary = join(dirname(pkg), process.platform === 'win32' ? 'claude.exe' : 'claude');
    return isExecutable(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
