import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { CLI_DIR, runCli } from './helpers.js';

// Help needs no project: run it where there is none.
const cwd = tmpdir();

// Each case is its own process: run them side by side.
describe.concurrent('qhatu --help', { timeout: 60_000 }, () => {
  it('lists every command', async () => {
    const { code, stdout } = await runCli(['--help'], { cwd });
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: qhatu [options] [command]');
    for (const command of ['new', 'start', 'worker', 'migrate', 'migration', 'tenants', 'api-keys', 'staff', 'plugin']) expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  it('prints the version of the package', async () => {
    const { version } = JSON.parse(readFileSync(`${CLI_DIR}/package.json`, 'utf8'));
    const { code, stdout } = await runCli(['--version'], { cwd });
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(version);
  });

  it.each([
    [['start'], ['Usage: qhatu start', '--workers', '--no-workers', '--migrate', '--config <path>', 'DATABASE_URL', 'QHATU_PLATFORM_TOKEN']],
    [['worker'], ['Usage: qhatu worker', '--migrate', '--config <path>', 'DATABASE_URL']],
    [['migrate'], ['Usage: qhatu migrate', '--config <path>', 'QHATU_DATA_DIR']],
    [['tenants'], ['Usage: qhatu tenants', 'create']],
    [['tenants', 'create'], ['Usage: qhatu tenants create', '--name <name>', '--slug <slug>', '--currency <code>', '--locale <locale>', '--json']],
    [['api-keys'], ['Usage: qhatu api-keys', 'create']],
    [['api-keys', 'create'], ['Usage: qhatu api-keys create', '--tenant <id>', '--name <name>', '--scope <scope>', '--expires-at <time>', '--json', 'shown only this once']],
    [['staff', 'create'], ['Usage: qhatu staff create', '--tenant <id>', '--email <email>', '--role <role>', '--first-name <name>', '--json', 'QHATU_STAFF_PASSWORD']],
    [['new'], ['Usage: qhatu new [options] <dir>', '--plugins <names>', '--from <folder>', '--package-manager <name>', '--no-install', 'media,catalog,customers']],
    [['plugin'], ['Usage: qhatu plugin', 'new']],
    [['plugin', 'new'], ['Usage: qhatu plugin new [options] <name>', '--dir <folder>', 'plugin-<name>', 'In a store project']],
    [['migration', 'generate'], ['Usage: qhatu migration generate [options] <plugin>', '--dir <folder>', '--name <words>', '--config <path>', 'tenant_id first', 'never drops']],
  ])('qhatu %j --help explains the command', async (command, expected) => {
    const { code, stdout, stderr } = await runCli([...command, '--help'], { cwd });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    for (const text of expected) expect(stdout).toContain(text);
  });
});

describe.concurrent('usage errors', { timeout: 60_000 }, () => {
  it('refuses an unknown command with exit code 1', async () => {
    const { code, stderr } = await runCli(['serve'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain("unknown command 'serve'");
  });

  it('names a missing required option', async () => {
    const { code, stderr } = await runCli(['api-keys', 'create', '--name', 'Admin', '--scope', 'admin'], { cwd });
    expect(code).toBe(1);
    expect(stderr).toContain("required option '--tenant <id>' not specified");
  });
});
