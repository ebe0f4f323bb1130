/**
 * Isolated environments for running the real CLIs against the model server: a private HOME (and
 * CODEX_HOME), the fake endpoints, fake keys, and every kind of non-essential traffic turned off,
 * so nothing reaches the internet or touches a real home. Only PATH is taken from the caller.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

export interface AgentEnvOptions {
  /** The model server's URL (`ModelServer.url`). */
  url: string;
  /** A temp folder that becomes HOME. */
  home: string;
  /** Model the CLI asks for; codex needs a slug from its bundled catalog to keep its tools. */
  model?: string;
  /** Variables to add or override. */
  extra?: NodeJS.ProcessEnv;
}

function baseEnv(home: string): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    LANG: 'C.UTF-8',
    // Keep git inside the test: no global or system config, fixed identity.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig-none'),
    GIT_AUTHOR_NAME: 'Baton Test',
    GIT_AUTHOR_EMAIL: 'test@baton.invalid',
    GIT_COMMITTER_NAME: 'Baton Test',
    GIT_COMMITTER_EMAIL: 'test@baton.invalid',
  };
}

export function claudeEnv(options: AgentEnvOptions): NodeJS.ProcessEnv {
  return {
    ...baseEnv(options.home),
    ANTHROPIC_BASE_URL: options.url,
    ANTHROPIC_API_KEY: 'sk-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // Scripted errors would otherwise be retried with back-off for a long while.
    CLAUDE_CODE_MAX_RETRIES: '0',
    ...(options.model === undefined ? {} : { ANTHROPIC_MODEL: options.model }),
    ...options.extra,
  };
}

/**
 * Where the tests' CODEX_HOMEs live: in the checkout, not the system's temp folder. With
 * bubblewrap on the machine, codex will not set up its own sandbox helper under a CODEX_HOME in
 * /tmp, and every command it runs then fails and asks to run unsandboxed. Removed when the run
 * ends (test/support/leftovers.ts).
 */
export const TEST_CODEX_ROOT = join(fileURLToPath(new URL('../../..', import.meta.url)), '.baton-test-codex');

/** One CODEX_HOME per test home, the same on every call: a resumed thread is found in it. */
function codexHomeFor(home: string): string {
  return join(TEST_CODEX_ROOT, createHash('sha256').update(home).digest('hex').slice(0, 16));
}

/** Writes `$CODEX_HOME/config.toml` pointing codex at the fake provider. */
export function codexEnv(options: AgentEnvOptions & { codexHome?: string }): NodeJS.ProcessEnv {
  const codexHome = options.codexHome ?? codexHomeFor(options.home);
  mkdirSync(codexHome, { recursive: true });
  const config = [
    `model = ${JSON.stringify(options.model ?? 'gpt-5.5')}`,
    'model_provider = "fake"',
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = ${JSON.stringify(`${options.url}/v1`)}`,
    'env_key = "FAKE_OPENAI_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
  writeFileSync(join(codexHome, 'config.toml'), config);
  return {
    ...baseEnv(options.home),
    CODEX_HOME: codexHome,
    FAKE_OPENAI_API_KEY: 'sk-test',
    ...options.extra,
  };
}

/** The `claude` binary the Agent SDK installs in its platform package. */
export function bundledClaudePath(): string {
  const pkg = `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`;
  return join(dirname(require.resolve(pkg)), process.platform === 'win32' ? 'claude.exe' : 'claude');
}

/** The `codex` launcher the @openai/codex devDependency installs. */
export function installedCodexPath(): string {
  return join(dirname(require.resolve('@openai/codex/package.json')), 'bin', 'codex.js');
}

/**
 * Everything a supervisor needs to run real `claude` and `codex` sessions against the model
 * server: both isolated environments under one temp HOME, and the binaries to use.
 */
export function realAgentsEnv(url: string, home: string): NodeJS.ProcessEnv {
  return {
    ...claudeEnv({ url, home }),
    ...codexEnv({ url, home }),
    BATON_CLAUDE_PATH: bundledClaudePath(),
    BATON_CODEX_PATH: installedCodexPath(),
  };
}

/**
 * Gemini CLI against the fake Gemini API: an API key, `GOOGLE_GEMINI_BASE_URL`, a fixed model
 * (so the model router's classifier is skipped), and usage statistics, telemetry and update
 * checks off in `~/.gemini/settings.json`. The test's repository is trusted, as a user trusts
 * their own checkout, so the CLI offers its full approval options.
 */
export function geminiEnv(options: AgentEnvOptions): NodeJS.ProcessEnv {
  const settings = join(options.home, '.gemini');
  mkdirSync(settings, { recursive: true });
  writeFileSync(
    join(settings, 'settings.json'),
    JSON.stringify({
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      security: { auth: { selectedType: 'gemini-api-key' } },
    }),
  );
  return {
    ...baseEnv(options.home),
    GEMINI_API_KEY: 'sk-test',
    GOOGLE_GEMINI_BASE_URL: options.url,
    GEMINI_MODEL: options.model ?? 'gemini-2.5-pro',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    GEMINI_TELEMETRY_ENABLED: 'false',
    NO_BROWSER: 'true',
    ...options.extra,
  };
}

/**
 * opencode against the fake Chat Completions endpoint: a custom provider (`fake`) whose `baseURL`
 * is the server, given whole in `OPENCODE_CONFIG_CONTENT`, with the models catalogue fetch,
 * updates, sharing, LSP downloads, default plugins and npm installs off. Its data goes under
 * the test's HOME (XDG folders).
 *
 * Nothing here waits on the network: opencode 1.18's time is its own computing. Measured per
 * process for one short turn: ~8.5 s of CPU (3.5 to answer `initialize`, 2.2 for `session/new`,
 * 2.8 for the turn; `opencode --version` alone takes 1), against ~2.5 s of wall time for Gemini
 * CLI's whole turn. Turning off more — `OPENCODE_PURE`, `OPENCODE_DISABLE_FFF`, the file watcher,
 * external and Claude Code skills, pruning, `snapshot: false`, Bun's optimizing JITs — and a home
 * whose database is already migrated each changed it by less than the runs' own spread, so they
 * are not set.
 */
export function opencodeEnv(options: AgentEnvOptions): NodeJS.ProcessEnv {
  const model = options.model ?? 'fake-model';
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: `fake/${model}`,
    small_model: `fake/${model}`,
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${options.url}/v1`, apiKey: 'sk-test' },
        models: { [model]: { name: 'Fake model' } },
      },
    },
  };
  return {
    ...baseEnv(options.home),
    XDG_DATA_HOME: join(options.home, '.local', 'share'),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_SHARE: '1',
    // opencode installs its plugin package into each config folder from the npm registry at
    // start, whatever the config says: a dead registry and offline mode keep it from the network
    // (it logs the failed install and carries on).
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_offline: 'true',
    ...options.extra,
  };
}

/** The `gemini` launcher the @google/gemini-cli devDependency installs. */
export function installedGeminiPath(): string {
  return join(dirname(require.resolve('@google/gemini-cli/package.json')), 'bundle', 'gemini.js');
}

/** The native `opencode` binary of the opencode-ai devDependency's platform package. */
export function installedOpencodePath(): string {
  const pkg = `opencode-${process.platform}-${process.arch}/package.json`;
  return join(
    dirname(require.resolve(pkg, { paths: [dirname(require.resolve('opencode-ai/package.json'))] })),
    'bin',
    'opencode',
  );
}
