import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { machineNameFrom } from './cluster-settings.js';
import { loadConfig } from './config.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-config-'));
  file = join(dir, 'config.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (config: unknown): void => writeFileSync(file, JSON.stringify(config));
const refusal = (env: NodeJS.ProcessEnv = {}): unknown => {
  try {
    loadConfig(file, env);
  } catch (error) {
    return error;
  }
  throw new Error('loadConfig accepted it');
};

describe('the shared store and machine name in the user config', () => {
  test('no store anywhere: this machine alone, named after its host', () => {
    const config = loadConfig(file, {});
    expect(config.store).toBeUndefined();
    expect(config.machine).toEqual({ name: machineNameFrom(hostname()), source: 'the host name' });
  });

  test('each source is read, and --store beats BATON_STORE beats config.json', () => {
    write({ store: 'postgres://a@file.lan/baton', machine: 'from-file' });
    expect(loadConfig(file, {})).toMatchObject({
      store: { url: 'postgres://a@file.lan/baton', source: `config.json's "store"` },
      machine: { name: 'from-file', source: `config.json's "machine"` },
    });
    const env = { BATON_STORE: 'postgres://a@env.lan/baton', BATON_MACHINE: 'from-env' };
    expect(loadConfig(file, env)).toMatchObject({
      store: { url: 'postgres://a@env.lan/baton', source: 'BATON_STORE' },
      machine: { name: 'from-env', source: 'BATON_MACHINE' },
    });
    const flags = {
      ...env,
      BATON_STORE_FLAG: 'postgres:///baton?host=/run/pg',
      BATON_MACHINE_FLAG: 'from-flag',
    };
    expect(loadConfig(file, flags)).toMatchObject({
      store: { url: 'postgres:///baton?host=/run/pg', source: '--store' },
      machine: { name: 'from-flag', source: '--machine' },
    });
    // An empty environment variable is unset, as for the other BATON_ variables.
    expect(loadConfig(file, { BATON_STORE: '', BATON_MACHINE: '' })).toMatchObject({
      store: { source: `config.json's "store"` },
      machine: { source: `config.json's "machine"` },
    });
  });

  test('a bad store or machine names where it came from, and never prints the password', () => {
    expect(refusal({ BATON_STORE: 'mysql://u:hunter2@db/baton' })).toMatchObject({
      code: 'invalid_input',
      data: { key: 'BATON_STORE', value: 'mysql://u:***@db/baton' },
    });
    expect(String(refusal({ BATON_STORE: 'mysql://u:hunter2@db/baton' }))).not.toContain('hunter2');
    expect(refusal({ BATON_STORE_FLAG: '' })).toMatchObject({
      message: expect.stringMatching(/^--store is not a PostgreSQL URL \(it is empty\)/) as unknown,
    });
    expect(refusal({ BATON_MACHINE: 'has space' })).toMatchObject({
      code: 'invalid_input',
      data: { key: 'BATON_MACHINE' },
    });
    expect(refusal({ BATON_MACHINE_FLAG: 'any' })).toMatchObject({
      data: { key: '--machine', value: 'any' },
    });
    write({ store: 'db.internal/baton' });
    expect(refusal()).toMatchObject({
      message: expect.stringMatching(
        /^config\.json's "store" is not a PostgreSQL URL \(it does not parse as a URL\)/,
      ) as unknown,
    });
    write({ machine: '../x' });
    expect(refusal()).toMatchObject({ data: { key: `config.json's "machine"` } });
    write({ store: 5 });
    expect(refusal()).toMatchObject({ message: expect.stringContaining('store: ') as unknown });
  });

  test('a host name becomes a valid machine name', () => {
    expect(machineNameFrom('Build-Box.LAN')).toBe('build-box.lan');
    expect(machineNameFrom("Anna's MacBook Pro")).toBe('anna-s-macbook-pro');
    expect(machineNameFrom('-_x')).toBe('x');
    expect(machineNameFrom('ANY')).toBe('machine');
    expect(machineNameFrom('')).toBe('machine');
    expect(machineNameFrom('a'.repeat(80))).toHaveLength(63);
  });
});

describe("the shared log's retention", () => {
  test('30 days unless config.json or BATON_STORE_RETENTION_DAYS says otherwise; the variable wins', () => {
    expect(loadConfig(file, {}).storeRetentionDays).toBe(30);
    write({ storeRetentionDays: 7 });
    expect(loadConfig(file, {}).storeRetentionDays).toBe(7);
    expect(loadConfig(file, { BATON_STORE_RETENTION_DAYS: '90' }).storeRetentionDays).toBe(90);
  });

  test('a value that is not a whole number of days from 1 to 3650 is refused, naming where it came from', () => {
    write({ storeRetentionDays: 0 });
    expect(String(refusal())).toMatch(/storeRetentionDays/);
    write({ storeRetentionDays: 'a month' });
    expect(String(refusal())).toMatch(/storeRetentionDays/);
    write({});
    expect(String(refusal({ BATON_STORE_RETENTION_DAYS: '1.5' }))).toMatch(
      /BATON_STORE_RETENTION_DAYS must be a whole number of days from 1 to 3650, got "1.5"/,
    );
    expect(String(refusal({ BATON_STORE_RETENTION_DAYS: '4000' }))).toMatch(/got "4000"/);
    expect(String(refusal({ BATON_STORE_RETENTION_DAYS: '1e2' }))).toMatch(/got "1e2"/);
    expect(String(refusal({ BATON_STORE_RETENTION_DAYS: '0x10' }))).toMatch(/got "0x10"/);
  });
});
