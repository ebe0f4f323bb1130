/** Rules about data and releases: destructive SQL run against a database, and publishing packages. */
import { SQL_FROM_SCRIPT } from './inline.js';
import { operandsOf } from './rules-files.js';
import type { Word } from './shell.js';
import type { CommandRule } from './types.js';
import type { Command } from './unwrap.js';

export const SQL = 'sql-destructive';
export const PUBLISH = 'package-publish';

/** Database clients and the flags that carry a statement; their stdin is SQL too. */
const SQL_CLIENTS: Record<string, string[]> = {
  psql: ['-c', '--command'],
  mysql: ['-e', '--execute'],
  mariadb: ['-e', '--execute'],
  sqlite3: [],
  duckdb: ['-c'],
  sqlcmd: ['-Q', '-q'],
  'clickhouse-client': ['-q', '--query'],
  clickhouse: ['-q', '--query'],
  cockroach: ['-e', '--execute'],
  snowsql: ['-q', '--query'],
  mongosh: ['--eval'],
  mongo: ['--eval'],
};

const sql: CommandRule = {
  id: SQL,
  title: 'SQL DROP, TRUNCATE, or DELETE without WHERE sent to a database',
  action: 'ask',
  suggest: 'DELETE … WHERE <condition>, or a migration the user reviews',
  check(command) {
    for (const text of statementsOf(command)) {
      const found = destructiveSql(text);
      if (found !== undefined)
        return {
          rule: SQL,
          why: `${found}${command.name === SQL_FROM_SCRIPT ? ' (executed by an inline script)' : ` (sent to ${command.name})`}`,
        };
    }
    if (command.name === 'redis-cli' && command.args.some((a) => /^flush(all|db)$/i.test(a.text)))
      return { rule: SQL, why: 'redis-cli FLUSHALL/FLUSHDB empties the database' };
    return undefined;
  },
};

/** The statements a command sends to a database, if it is a database client. */
function statementsOf(command: Command): string[] {
  if (command.name === SQL_FROM_SCRIPT) return command.args.map((a) => a.text);
  const flags = SQL_CLIENTS[command.name];
  if (flags === undefined) return [];
  const out: string[] = [];
  command.args.forEach((arg, i) => {
    if (flags.includes(arg.text)) out.push(command.args[i + 1]?.text ?? '');
    const glued = flags.find((f) => f.startsWith('--') && arg.text.startsWith(`${f}=`));
    if (glued !== undefined) out.push(arg.text.slice(glued.length + 1));
  });
  // sqlite3 and duckdb take the statement after the database file.
  if (command.name === 'sqlite3' || command.name === 'duckdb')
    out.push(
      ...operandsOf(command.args)
        .slice(1)
        .map((w) => w.text),
    );
  if (command.stdin !== undefined) out.push(command.stdin);
  return out;
}

/** The first destructive statement in some SQL, described; undefined when there is none. */
export function destructiveSql(text: string): string | undefined {
  const code = text
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''");
  for (const raw of code.split(';')) {
    const statement = raw.replace(/\s+/g, ' ').trim();
    const drop =
      /^DROP\s+(TABLE|DATABASE|SCHEMA|VIEW|MATERIALIZED VIEW|INDEX|USER|ROLE|KEYSPACE|COLLECTION)\b(.*)$/i.exec(
        statement,
      );
    if (drop !== null) return `DROP ${(drop[1] ?? '').toUpperCase()}${(drop[2] ?? '').slice(0, 60)}`;
    if (/^TRUNCATE\b/i.test(statement)) return statement.slice(0, 70);
    if (/^DELETE\s+FROM\b/i.test(statement) && !/\bWHERE\b/i.test(statement))
      return `${statement.slice(0, 60)} (no WHERE)`;
    if (/\bdropDatabase\s*\(|\.drop\s*\(\s*\)|\.deleteMany\s*\(\s*\{\s*\}\s*\)/.test(statement))
      return statement.slice(0, 60);
  }
  return undefined;
}

/** Commands that publish a package or an image, and the arguments that make them publish. */
const PUBLISHERS: [string, (args: Word[]) => boolean][] = [
  ['npm', (a) => first(a, 'publish', 'unpublish', 'deprecate')],
  ['pnpm', (a) => first(a, 'publish')],
  ['yarn', (a) => first(a, 'publish') || (a[0]?.text === 'npm' && a[1]?.text === 'publish')],
  ['bun', (a) => first(a, 'publish')],
  ['cargo', (a) => first(a, 'publish', 'yank')],
  ['twine', (a) => first(a, 'upload')],
  ['gem', (a) => first(a, 'push', 'yank')],
  ['poetry', (a) => first(a, 'publish')],
  ['flit', (a) => first(a, 'publish')],
  ['hatch', (a) => first(a, 'publish')],
  ['uv', (a) => first(a, 'publish')],
  ['mvn', (a) => a.some((w) => w.text === 'deploy')],
  ['gradle', (a) => a.some((w) => /^publish/.test(w.text))],
  ['gradlew', (a) => a.some((w) => /^publish/.test(w.text))],
  ['dotnet', (a) => first(a, 'nuget') && a[1]?.text === 'push'],
  ['docker', (a) => first(a, 'push') || (a[0]?.text === 'image' && a[1]?.text === 'push')],
  ['vsce', (a) => first(a, 'publish')],
];
const DRY_RUN = new Set(['--dry-run', '-n', '--dryrun']);

const publish: CommandRule = {
  id: PUBLISH,
  title: 'publishing a package (npm publish, cargo publish, twine upload, …)',
  action: 'ask',
  suggest: 'npm publish --dry-run (or npm pack) to see what would be published',
  check(command) {
    const name = command.name.replace(/^\.\//, '');
    const found = PUBLISHERS.find(([program, publishes]) => program === name && publishes(command.args));
    if (found === undefined) return undefined;
    if (command.args.some((a) => DRY_RUN.has(a.text))) return undefined;
    return {
      rule: PUBLISH,
      why: `${name} ${command.args[0]?.text ?? ''} publishes to a registry others install from`,
    };
  },
};

function first(args: Word[], ...names: string[]): boolean {
  return names.includes(args[0]?.text ?? '');
}

export const DATA_RULES: CommandRule[] = [sql, publish];
