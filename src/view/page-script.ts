// The page's one script: the browser modules under client/, joined in dependency order into a
// single function scope, with the few modules of the library they share (SHARED_MODULES: ones
// that import nothing, so that the page does what the command does with the same code). From
// dist/ these are the compiled .js files; from the source (tests, tsx) the .ts files,
// transpiled with TypeScript (a dev dependency, present wherever the sources are). The client's
// modules import only each other and the shared ones, by name, so joining them is removing
// their import lines and export keywords; anything else is refused here.

import { existsSync, readFileSync } from 'node:fs';
import { ShadowlogError } from '../log/errors.js';

/** Modules of the library the page's script joins too, by the path a client module imports them by (from client/). */
export const SHARED_MODULES: Readonly<Record<string, string>> = {
  'search-match': '../../store/search/search-match',
  'command-line': '../../whatif/command-line',
};

/** The client's modules, each after the ones it imports (the shared ones first). */
export const CLIENT_MODULES = [
  'page-blocks',
  'invisible-text',
  'text',
  'page-source',
  'call-figures',
  'surface-diff',
  'client-rewrites',
  'session-model',
  'virtual-list',
  'pressure-chart',
  'node-lists',
  'panels',
  'tune-panel',
  'main',
] as const;

export class ViewAssetError extends ShadowlogError {
  constructor(message: string) {
    super('VIEW_ASSET', message);
  }
}

const IMPORT = /^import\s[\s\S]*?\sfrom\s+'([^']+)';?[ \t]*$/gm;

/** One client module's JavaScript, with its imports removed and its exports made local. */
export function localModule(name: string, javascript: string): string {
  const body = javascript.replace(IMPORT, (statement: string, specifier: string) => {
    const shared = Object.entries(SHARED_MODULES).find(([, path]) => `${path}.js` === specifier)?.[0];
    const local = shared ?? /^\.\/([\w-]+)\.js$/.exec(specifier)?.[1];
    if (statement.startsWith('import type ') || (specifier.startsWith('../') && shared === undefined)) {
      if (!statement.startsWith('import type '))
        throw new ViewAssetError(`${name}: imports ${specifier} at run time; the page's script can use only its own modules`);
      return '';
    }
    const known = shared !== undefined || (CLIENT_MODULES as readonly string[]).includes(local ?? '');
    if (local === undefined || !known || /\sas\s|\*/.test(statement)) {
      throw new ViewAssetError(
        `${name}: ${statement.trim()} cannot be joined; client modules import each other's names as they are, by ./name.js`,
      );
    }
    return '';
  });
  return body
    .replace(/^export\s+(?=(?:async\s+)?(?:function|class|const|let|interface|type)\b)/gm, '')
    .replace(/^export\s*\{\s*\};?\s*$/gm, '')
    .replace(/^\/\/# sourceMappingURL=.*$/gm, '');
}

let cached: string | undefined;

/** The page's script (read and joined once per process). */
export async function pageScript(): Promise<string> {
  if (cached !== undefined) return cached;
  const parts: string[] = [];
  for (const [name, path] of Object.entries(SHARED_MODULES)) parts.push(`// ${name}\n${localModule(name, await clientModule(name, path))}`);
  for (const name of CLIENT_MODULES) parts.push(`// ${name}\n${localModule(name, await clientModule(name, `./${name}`))}`);
  cached = `'use strict';\n(() => {\n${parts.join('\n')}\n})();\n`;
  return cached;
}

/** A module of the page's script, by its path from client/ without the extension. */
async function clientModule(name: string, path: string): Promise<string> {
  const compiled = new URL(`./client/${path}.js`, import.meta.url);
  if (existsSync(compiled)) return readFileSync(compiled, 'utf8');
  const source = new URL(`./client/${path}.ts`, import.meta.url);
  if (!existsSync(source))
    throw new ViewAssetError(
      `the page's script module ${name} is missing from ${new URL('./client/', import.meta.url).pathname}; reinstall shadowlog`,
    );
  return transpileClientModule(readFileSync(source, 'utf8'));
}

/** A client module's TypeScript as the page's script joins it: what tsc writes to dist/, by TypeScript's transpiler. */
export async function transpileClientModule(source: string): Promise<string> {
  // A CommonJS package: its API is the default export when imported from an ES module.
  const imported = (await import('typescript')) as typeof import('typescript') & { default?: typeof import('typescript') };
  const typescript = imported.default ?? imported;
  return typescript.transpileModule(source, {
    compilerOptions: { target: typescript.ScriptTarget.ES2022, module: typescript.ModuleKind.ESNext },
  }).outputText;
}
