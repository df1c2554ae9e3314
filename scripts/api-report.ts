// The API report: for each entry of package.json "exports" (shadowlog, shadowlog/compaction, …),
// the names it exports and their types, as the TypeScript compiler sees them, one file per entry
// under api/. Checked in, so that a change to the public surface shows in review;
// test/api-report.test.ts fails when the files are not what this script writes.
//
//   npm run api-report            writes api/*.api.md
//   npm run api-report -- --check says which files differ, exit 1 if any

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const API_DIRECTORY = join(ROOT, 'api');

export interface ApiEntry {
  /** The specifier a user imports: 'shadowlog', 'shadowlog/compaction', … */
  readonly specifier: string;
  /** The source file behind it, relative to the repository: 'src/compaction/index.ts'. */
  readonly source: string;
  /** The report's file name under api/: 'shadowlog.api.md', 'shadowlog-compaction.api.md'. */
  readonly reportFile: string;
}

/** The package's entries, from package.json "exports": ./dist/X.js is built from src/X.ts. */
export function apiEntries(): ApiEntry[] {
  const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> };
  return Object.entries(packageJson.exports).map(([subpath, target]) => {
    const specifier = `shadowlog${subpath.slice(1)}`;
    return {
      specifier,
      source: target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'),
      reportFile: `${specifier.replaceAll('/', '-')}.api.md`,
    };
  });
}

const TYPE_FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature;

/** The report of every entry: file name → text. */
export function generateApiReports(entries: readonly ApiEntry[] = apiEntries()): Map<string, string> {
  const program = createProgram(entries.map((entry) => join(ROOT, entry.source)));
  const checker = program.getTypeChecker();
  const reports = new Map<string, string>();
  for (const entry of entries) {
    const file = program.getSourceFile(join(ROOT, entry.source));
    if (file === undefined) throw new Error(`${entry.specifier}: ${entry.source} does not exist; create it or fix package.json "exports"`);
    const moduleSymbol = checker.getSymbolAtLocation(file);
    const exported = moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol);
    const lines = [...exported]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((symbol) => describeExport(checker, symbol, file));
    reports.set(entry.reportFile, renderReport(entry, lines.map(withoutImportPaths)));
  }
  return reports;
}

/** The names an entry exports whose declaration has no TSDoc comment. */
export function undocumentedExports(entry: ApiEntry): string[] {
  const program = createProgram([join(ROOT, entry.source)]);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(join(ROOT, entry.source));
  const moduleSymbol = file === undefined ? undefined : checker.getSymbolAtLocation(file);
  if (moduleSymbol === undefined) throw new Error(`${entry.specifier}: ${entry.source} does not exist`);
  return checker
    .getExportsOfModule(moduleSymbol)
    .filter((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() === '';
    })
    .map((symbol) => symbol.name)
    .sort();
}

function createProgram(rootNames: readonly string[]): ts.Program {
  const configPath = join(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (config.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, undefined, configPath);
  return ts.createProgram({ rootNames, options: { ...parsed.options, noEmit: true } });
}

/** Types from modules the entry does not import print as import("/absolute/path").Name: keep the name. */
function withoutImportPaths(text: string): string {
  return text.replace(/import\("[^"]*"\)\./g, '');
}

function renderReport(entry: ApiEntry, declarations: readonly string[]): string {
  return [
    `# ${entry.specifier}`,
    '',
    `The names \`${entry.specifier}\` exports (from ${entry.source}) and their types. Written by`,
    '`npm run api-report`; test/api-report.test.ts fails when this file is out of date.',
    '',
    '```ts',
    ...declarations,
    '```',
    '',
  ].join('\n');
}

function describeExport(checker: ts.TypeChecker, exported: ts.Symbol, file: ts.SourceFile): string {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const name = exported.name;
  const parts: string[] = [];
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) parts.push(describeClass(checker, symbol, name, file));
  if (flags & ts.SymbolFlags.Interface) parts.push(describeInterface(checker, symbol, name, file));
  if (flags & ts.SymbolFlags.TypeAlias) parts.push(describeTypeAlias(checker, symbol, name, file));
  if (flags & ts.SymbolFlags.Function) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, file);
    for (const signature of type.getCallSignatures()) {
      parts.push(`function ${name}${signatureText(checker, signature, file)};`);
    }
  }
  if (flags & ts.SymbolFlags.Variable) {
    const declaration = symbol.valueDeclaration;
    const keyword = declaration !== undefined && ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const ? 'const' : 'let';
    parts.push(`${keyword} ${name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, file), file, TYPE_FORMAT)};`);
  }
  if (flags & ts.SymbolFlags.Enum) parts.push(`enum ${name};`);
  if (parts.length === 0) throw new Error(`${name}: an export of a kind the API report does not know (flags ${flags})`);
  return parts.join('\n');
}

function signatureText(checker: ts.TypeChecker, signature: ts.Signature, file: ts.SourceFile): string {
  return checker.signatureToString(signature, file, TYPE_FORMAT & ~ts.TypeFormatFlags.WriteArrowStyleSignature);
}

function typeParametersOf(symbol: ts.Symbol): string {
  const declaration = symbol.declarations?.find(
    (node): node is ts.ClassDeclaration | ts.InterfaceDeclaration | ts.TypeAliasDeclaration =>
      ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node),
  );
  const parameters = declaration?.typeParameters;
  return parameters === undefined ? '' : `<${parameters.map((parameter) => oneLine(parameter.getText())).join(', ')}>`;
}

function heritageOf(symbol: ts.Symbol): string {
  const declaration = symbol.declarations?.find(
    (node): node is ts.ClassDeclaration | ts.InterfaceDeclaration => ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node),
  );
  const clauses = declaration?.heritageClauses ?? [];
  return clauses.map((clause) => ` ${oneLine(clause.getText())}`).join('');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whether a member is part of the public surface: not private, protected or #private. */
function isPublicMember(member: ts.Symbol): boolean {
  if (member.name.startsWith('#') || member.name.startsWith('__')) return false;
  const declarations = member.declarations ?? [];
  return !declarations.some((node) => {
    const modifiers = ts.getCombinedModifierFlags(node);
    return (
      (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0 ||
      (ts.isClassElement(node) && node.name !== undefined && ts.isPrivateIdentifier(node.name))
    );
  });
}

/**
 * The members `owner` itself declares; inherited ones show in its heritage clause instead (and
 * Error's, from @types/node, not at all).
 */
function memberLines(checker: ts.TypeChecker, type: ts.Type, owner: ts.Symbol, file: ts.SourceFile, prefix = ''): string[] {
  const lines: string[] = [];
  const ownDeclarations = new Set<ts.Node>(owner.declarations ?? []);
  for (const member of checker.getPropertiesOfType(type)) {
    if (!isPublicMember(member) || member.name === 'prototype') continue;
    const declaredHere = (member.declarations ?? []).some(
      (node) => ownDeclarations.has(node.parent) || ownDeclarations.has(node.parent?.parent),
    );
    if (!declaredHere) continue;
    const declaration = member.declarations?.[0];
    const memberType = checker.getTypeOfSymbolAtLocation(member, file);
    const isMethod = declaration !== undefined && (ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration));
    if (isMethod) {
      for (const signature of memberType.getCallSignatures())
        lines.push(`  ${prefix}${member.name}${signatureText(checker, signature, file)};`);
      continue;
    }
    const isGetter = declaration !== undefined && ts.isGetAccessorDeclaration(declaration);
    const hasSetter = member.declarations?.some((node) => ts.isSetAccessorDeclaration(node)) === true;
    const readonly =
      isGetter && !hasSetter
        ? 'readonly '
        : declaration !== undefined && ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly
          ? 'readonly '
          : '';
    const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
    lines.push(`  ${prefix}${readonly}${quoteName(member.name)}${optional}: ${checker.typeToString(memberType, file, TYPE_FORMAT)};`);
  }
  return lines;
}

function quoteName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function describeClass(checker: ts.TypeChecker, symbol: ts.Symbol, name: string, file: ts.SourceFile): string {
  const staticType = checker.getTypeOfSymbolAtLocation(symbol, file);
  const instanceType = checker.getDeclaredTypeOfSymbol(symbol);
  const lines = [`class ${name}${typeParametersOf(symbol)}${heritageOf(symbol)} {`];
  const classDeclaration = symbol.declarations?.find(ts.isClassDeclaration);
  const constructors = classDeclaration?.members.filter(ts.isConstructorDeclaration) ?? [];
  const hiddenConstructor = constructors.some(
    (node) => (ts.getCombinedModifierFlags(node) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0,
  );
  if (!hiddenConstructor) {
    for (const signature of staticType.getConstructSignatures()) {
      const text = signatureText(checker, signature, file).replace(/^(<[^>]*>)?\((.*)\): .*$/s, '$1($2)');
      lines.push(`  constructor${text};`);
    }
  }
  lines.push(...memberLines(checker, staticType, symbol, file, 'static '));
  lines.push(...memberLines(checker, instanceType, symbol, file));
  lines.push('}');
  return lines.join('\n');
}

function describeInterface(checker: ts.TypeChecker, symbol: ts.Symbol, name: string, file: ts.SourceFile): string {
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  const lines = [`interface ${name}${typeParametersOf(symbol)}${heritageOf(symbol)} {`];
  for (const signature of type.getCallSignatures()) lines.push(`  ${signatureText(checker, signature, file)};`);
  for (const signature of type.getConstructSignatures()) lines.push(`  new ${signatureText(checker, signature, file)};`);
  const index = checker.getIndexInfosOfType(type);
  for (const info of index) {
    lines.push(`  [key: ${checker.typeToString(info.keyType, file, TYPE_FORMAT)}]: ${checker.typeToString(info.type, file, TYPE_FORMAT)};`);
  }
  lines.push(...memberLines(checker, type, symbol, file));
  lines.push('}');
  return lines.join('\n');
}

function describeTypeAlias(checker: ts.TypeChecker, symbol: ts.Symbol, name: string, file: ts.SourceFile): string {
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  const text = checker.typeToString(type, file, TYPE_FORMAT | ts.TypeFormatFlags.InTypeAlias);
  return `type ${name}${typeParametersOf(symbol)} = ${text};`;
}

/** Writes the reports, removing those of entries that no longer exist. */
export function writeApiReports(reports: ReadonlyMap<string, string>): void {
  mkdirSync(API_DIRECTORY, { recursive: true });
  for (const file of readdirSync(API_DIRECTORY)) if (file.endsWith('.api.md') && !reports.has(file)) rmSync(join(API_DIRECTORY, file));
  for (const [file, text] of reports) writeFileSync(join(API_DIRECTORY, file), text);
}

/** The report files that differ from what would be written: missing, changed or stale. */
export function staleApiReports(reports: ReadonlyMap<string, string>): string[] {
  const present = readdirSync(API_DIRECTORY).filter((file) => file.endsWith('.api.md'));
  const differing = [...reports].filter(([file, text]) => {
    try {
      return readFileSync(join(API_DIRECTORY, file), 'utf8') !== text;
    } catch {
      return true;
    }
  });
  return [...differing.map(([file]) => file), ...present.filter((file) => !reports.has(file))].sort();
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const reports = generateApiReports();
  if (process.argv.includes('--check')) {
    const stale = staleApiReports(reports);
    for (const file of stale) console.log(`${relative(ROOT, join(API_DIRECTORY, file))} is out of date`);
    process.exitCode = stale.length === 0 ? 0 : 1;
  } else {
    writeApiReports(reports);
    console.log(`wrote ${reports.size} reports to ${relative(ROOT, API_DIRECTORY)}/`);
  }
}
