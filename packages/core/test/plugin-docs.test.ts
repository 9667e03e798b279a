import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { compiledSnippets as snippetsOf, type Snippet } from './docs-snippets.js';

/**
 * docs/plugins.md tells a plugin's author how to write one; its snippets must be true to the code.
 * Every ```ts block of a section whose heading is followed by `<!-- compiled -->` (and of that
 * section's subsections) is type-checked against the workspace's packages, as a store with them
 * installed would compile it. A block whose first line is `// src/….ts` or `// test/….ts` is that
 * file of the example plugin (other blocks import it by that path); any other block is a file of
 * its own in the plugin's `src/`. An error names the line of docs/plugins.md it is on.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = 'docs/plugins.md';
/** Where the example plugin's files are, as far as the compiler knows: nothing is written there. */
const PLUGIN = path.join(ROOT, 'packages/core/test/.plugins-md-example');
/** The packages a snippet's imports resolve from, in order, as if installed beside the plugin. */
const INSTALLED_FROM = ['packages/plugin-payments', 'packages/plugin-gateway-stripe', 'packages/plugin-customers', 'packages/core'].map((dir) => path.join(ROOT, dir, 'src/index.ts'));

const parsed = new Map<string, ts.SourceFile | undefined>();

/** The compiler's complaints about each snippet, as `docs/plugins.md:<line>: <message>`. */
function typeCheck(snippets: Snippet[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  const options: ts.CompilerOptions = { ...config.options, noEmit: true };
  const virtual = new Map(snippets.map((s) => [s.file, s.code]));
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  const folders = new Set([...virtual.keys()].flatMap((file) => {
    const up: string[] = [];
    for (let dir = path.dirname(file); dir.startsWith(PLUGIN); dir = path.dirname(dir)) up.push(dir);
    return up;
  }));
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.directoryExists = (dir) => folders.has(dir) || (directoryExists?.call(host, dir) ?? true);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, onError, create) => {
    if (virtual.has(file)) return ts.createSourceFile(file, virtual.get(file)!, language, true);
    // The packages' files are the same for every check: parsed once.
    const key = `${file}\0${JSON.stringify(language)}`;
    if (!parsed.has(key)) parsed.set(key, getSourceFile.call(host, file, language, onError, create));
    return parsed.get(key);
  };
  const cache = ts.createModuleResolutionCache(ROOT, (f) => f, options);
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, opts, containingSource) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(containingSource, literal, opts);
      const resolve = (from: string) => ts.resolveModuleName(literal.text, from, opts, host, cache, redirected, mode);
      if (!virtual.has(containingFile) || literal.text.startsWith('.')) return resolve(containingFile);
      // A package a snippet imports: from the first workspace package that has it installed.
      for (const from of INSTALLED_FROM) {
        const found = resolve(from);
        if (found.resolvedModule) return found;
      }
      return resolve(containingFile);
    });
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const errors: string[] = [];
  for (const snippet of snippets) {
    const source = program.getSourceFile(snippet.file)!;
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const { line } = source.getLineAndCharacterOfPosition(d.start ?? 0);
      errors.push(`${DOC}:${snippet.line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')} (${snippet.section})`);
    }
  }
  return errors;
}

const compiledSnippets = (markdown: string) => snippetsOf(markdown, PLUGIN);
const markdown = readFileSync(path.join(ROOT, DOC), 'utf8');
const snippets = compiledSnippets(markdown);
const compiledCode = snippets.map((s) => s.code).join('\n');

describe(`the compiled snippets of ${DOC}`, () => {
  it('are found, one file each', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(8);
    const files = snippets.map((s) => path.relative(PLUGIN, s.file));
    expect(new Set(files).size, `a file named twice: ${files.join(', ')}`).toBe(files.length);
  });

  let errors: string[];
  beforeAll(() => void (errors = typeCheck(snippets)), 120_000);

  it('type-check against the packages', () => {
    expect(errors).toEqual([]);
  });

  it('a mistake in one is reported on its line of the document', () => {
    const doc = `## Broken\n<!-- compiled -->\n\n\`\`\`ts\nimport { definePlugin } from '@qhatu/core';\n\nexport default definePlugin({ name: 'x', dependsOn: 'customers' });\n\`\`\`\n`;
    const [broken] = compiledSnippets(doc);
    expect(broken).toMatchObject({ section: 'Broken', line: 5 });
    const [error, ...more] = typeCheck([{ ...broken, file: path.join(PLUGIN, 'src/broken.ts') }]);
    expect(more).toEqual([]);
    expect(error).toMatch(/^docs\/plugins\.md:7: Type 'string' is not assignable to type 'string\[\]'/);
  });
});

describe(`${DOC} shows, in compiled code,`, () => {
  const shown: Record<string, RegExp> = {
    'onReady': /\bonReady\(\{ container \}\)/,
    'background with Jobs.every': /background\(\{ container \}\)[\s\S]*\.every\(/,
    'OutboxRelay.queueOn with an accept function': /\.queueOn\('[\w.]+', \w+, \(data\) =>/,
    'OutboxRelay.subscribe and its transaction': /\.subscribe\(async \(event: DomainEvent, tx: Tx\)/,
    'a job definition with attempts and backoffMs': /handler:[\s\S]*attempts: \d[\s\S]*backoffMs: [\d_]+/,
    'a job handler with its context': /async \(_data: unknown, \{ container, log \}\)/,
    'GraphQL access, resolvers and loaders': /access: \{[\s\S]*resolvers: \{[\s\S]*loaders: \{/,
    'the GraphQL types of core': /type GraphQLContribution, type QhatuGraphQLContext/,
    'a service registered with useFactory': /container\.register\(Points, \{ useFactory: /,
    'a service with @inject': /@injectable\(\)[\s\S]*@inject\(Database\)/,
    'createTestApp with workers': /createTestApp\(\{ plugins: \[[^\]]+\], workers: true \}\)/,
    'waiting for jobs': /await t\.settle\(\)/,
    'the gateway kit': /gatewayApp\(stripe, 'QHATU_GATEWAY_STRIPE_BASE_URL'/,
    "a gateway's double": /new StripeDouble\(/,
  };
  it.each(Object.entries(shown))('%s', (_what, pattern) => {
    expect(compiledCode).toMatch(pattern);
  });
});

describe('tsyringe', () => {
  const version = (dir: string) => JSON.parse(readFileSync(path.join(ROOT, 'packages', dir, 'package.json'), 'utf8')).dependencies?.tsyringe as string | undefined;
  const core = version('core')!;

  it(`is the version ${DOC} names, which must match core's exactly`, () => {
    const [, named] = /at \*\*exactly the version `@qhatu\/core` depends on\*\*\s+\(`([^`]+)` today/.exec(markdown) ?? [];
    expect(named).toBe(core);
  });

  it("is core's exact version in every package that depends on it", () => {
    const packages = readdirSync(path.join(ROOT, 'packages')).filter((dir) => existsSync(path.join(ROOT, 'packages', dir, 'package.json')));
    const others = packages.filter((dir) => version(dir) !== undefined && version(dir) !== core);
    expect(core).toMatch(/^\d+\.\d+\.\d+$/);
    expect(others).toEqual([]);
  });
});
