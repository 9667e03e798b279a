import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { CliError } from '../errors.js';
import { print } from '../output.js';
import { CATALOGUE } from '../scaffold/project/catalogue.js';
import { scaffoldProject, type PackageManager } from '../scaffold/project/scaffold.js';

interface NewOptions {
  plugins?: string;
  from?: string;
  packageManager?: PackageManager;
  install: boolean;
}

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function newCommand(): Command {
  return new Command('new')
    .summary('make a new store project')
    .description(
      "Write a store project into <dir>: package.json depending on the Qhatu packages, qhatu.config.ts composing the plugins, a first test, a README and .env.example; then install its dependencies and print how to start it and test it.",
    )
    .argument('<dir>', 'the folder to create (it must not exist, or be empty)')
    .option('--plugins <names>', `comma-separated plugins (their dependencies come along); default: all of them, as the full-store starter: ${CATALOGUE.map((p) => p.name).join(',')}`)
    .option('--from <folder>', 'take the Qhatu packages from a folder of packed tarballs (pnpm pack), or link them from a clone of the Qhatu repository (run from source; needs pnpm), instead of the registry')
    .addOption(new Option('--package-manager <name>', 'the package manager that installs and runs it (default: the one running this, else pnpm)').choices(['pnpm', 'npm']))
    .option('--no-install', 'write the files only')
    .addHelpText('after', '\nExamples:\n  qhatu new my-shop\n  qhatu new my-shop --plugins catalog,checkout,stripe --no-install\n  qhatu new my-shop --from ./tarballs    # packages packed with pnpm pack\n  qhatu new my-shop --from ~/src/qhatu   # packages linked from a clone\n')
    .action((dir: string, options: NewOptions) => newProject(dir, options));
}

async function newProject(rawDir: string, options: NewOptions): Promise<void> {
  const packageManager = options.packageManager ?? detectPackageManager();
  const plugins = options.plugins === undefined ? undefined : options.plugins.split(',').map((p) => p.trim()).filter(Boolean);
  if (plugins && plugins.length === 0) throw new CliError('--plugins: name at least one plugin');
  const dir = path.resolve(rawDir);
  const project = await scaffoldProject(dir, { plugins, from: options.from, packageManager, version });
  const relative = path.relative(process.cwd(), dir);
  const shown = !relative ? '.' : relative.startsWith('..') ? dir : relative;
  print(`Created ${project.name} in ${shown}, with ${project.plugins.length} plugins: ${project.plugins.map((p) => p.name).join(', ')}`);
  if (project.added.length) print(`  (${project.added.join(', ')} came in as dependencies of the plugins you named)`);
  for (const file of project.files) print(`  ${file}`);

  if (options.install) {
    print(`\nInstalling with ${packageManager}…`);
    await install(packageManager, dir);
  }
  const run = packageManager === 'pnpm' ? 'pnpm' : 'npm run';
  print(`
Next:
  cd ${shown}${options.install ? '' : `\n  ${packageManager} install`}
  ${run} start   # serves the store on ${address()} (embedded database in ./.qhatu)
  ${run} test    # runs test/store.test.ts and your plugins' tests (PostgreSQL on 127.0.0.1:5432, or TEST_DATABASE_URL)`);
}

/** Where `start` will listen from this shell: QHATU_PUBLIC_URL, else HOST and PORT, as core reads them. */
function address(): string {
  const { QHATU_PUBLIC_URL, HOST, PORT } = process.env;
  if (QHATU_PUBLIC_URL) return QHATU_PUBLIC_URL.replace(/\/$/, '');
  const host = !HOST || HOST === '0.0.0.0' || HOST === '::' ? (HOST ? 'localhost' : '127.0.0.1') : HOST;
  return `http://${host}:${PORT || 3000}`;
}

function detectPackageManager(): PackageManager {
  return (process.env.npm_config_user_agent ?? '').startsWith('npm/') ? 'npm' : 'pnpm';
}

/** Runs `<pm> install` in the project, its output going to the terminal (on stderr: stdout stays the command's). */
function install(packageManager: PackageManager, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(packageManager, ['install'], { cwd, stdio: ['ignore', 2, 2] });
    child.on('error', (error) => reject(new CliError(`cannot run ${packageManager}: ${error.message}`, [`install it, or pass --package-manager, or --no-install`])));
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new CliError(`${packageManager} install failed (exit code ${code}); the project is written`, [`fix the problem above, then run ${packageManager} install in ${cwd}`]));
    });
  });
}
