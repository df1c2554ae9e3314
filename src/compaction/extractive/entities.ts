// Extracts file paths, URLs and code identifiers from a sentence. Paths are ASCII-bounded on
// purpose: in "修改了src/csv.ts文件" the path ends where the Han characters begin.

export type EntityKind = 'path' | 'identifier';

export interface Entity {
  readonly kind: EntityKind;
  /** As shown: calls keep their "()". */
  readonly text: string;
  /** Two spellings of one thing ("parseRow" and "parseRow()") share a key. */
  readonly key: string;
}

const URL_PATTERN = /https?:\/\/[^\s<>"'`)\]}，。、；：！？「」（）]+/gu;
const WINDOWS_PATH = /(?<![A-Za-z0-9_])[A-Za-z]:\\[\w.\-@+$\\]*/g;
const POSIX_PATH = /(?<![\w.\-@+~/\\])(?:~\/|\.{1,2}\/|\/)?(?:[\w.\-@+$]+\/)+[\w.\-@+$]*/g;
const BARE_FILE = /(?<![\w.\-/\\@])[\w-]+(?:\.[\w-]+)+(?![\w\-/\\]|\.\w)/g;
const CODE_SPAN = /`([^`\s]{2,80})`/g;
const CALL = /(?<![\w$.])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?=\()/g;
const CAMEL_CASE = /(?<![\w$])[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+(?![\w$])/g;
const PASCAL_CASE = /(?<![\w$])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?![\w$])/g;
const SNAKE_CASE = /(?<![\w$])_{0,2}[a-z][a-z0-9]*(?:_[a-z0-9]+)+_{0,2}(?![\w$])/g;
const CONSTANT_CASE = /(?<![\w$])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w$])/g;
const TRAILING_PUNCTUATION = /[.,:;]+$/;

const FILE_EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonl md mdx py pyi rs go java kt kts swift c h cc cpp hpp cs rb php sh bash zsh ps1 ' +
    'yml yaml toml ini cfg conf env lock txt csv tsv sql html htm css scss less vue svelte xml gradle log patch diff proto graphql'
  ).split(' '),
);
/** Product names that look like code; listing them as identifiers would be noise. */
const NOT_IDENTIFIERS = new Set(
  'JavaScript TypeScript GitHub GitLab PostgreSQL MySQL MongoDB YouTube LinkedIn PowerShell OpenAI ChatGPT iPhone iPad iOS macOS iCloud eBay'.split(
    ' ',
  ),
);
const CALL_KEYWORDS = new Set('if for while switch catch function return typeof await new super import require'.split(' '));

function looksLikePath(candidate: string): boolean {
  if (!/[A-Za-z]/.test(candidate)) return false;
  if (/^(?:~\/|\.{1,2}\/|\/)/.test(candidate)) return true;
  const slashes = candidate.split('/').length - 1;
  const last = candidate.slice(candidate.lastIndexOf('/') + 1);
  return slashes >= 2 || /\.[A-Za-z0-9]{1,10}$/.test(last);
}

function hasFileExtension(candidate: string): boolean {
  const extension = candidate.slice(candidate.lastIndexOf('.') + 1).toLowerCase();
  return FILE_EXTENSIONS.has(extension) && /[A-Za-z]/.test(candidate.slice(0, candidate.lastIndexOf('.')));
}

interface Found {
  readonly index: number;
  readonly entity: Entity;
}

function collect(text: string, pattern: RegExp, make: (match: string) => Entity | undefined, found: Found[]): void {
  for (const match of text.matchAll(pattern)) {
    const captured = match[1];
    const entity = make(captured ?? match[0]);
    // A captured group (a code span's inside) starts after its delimiter.
    const index = captured === undefined ? match.index : match.index + match[0].indexOf(captured);
    if (entity !== undefined) found.push({ index, entity });
  }
}

function path(candidate: string): Entity | undefined {
  const text = candidate.replace(TRAILING_PUNCTUATION, '');
  return text.length < 3 ? undefined : { kind: 'path', text, key: text };
}

function identifier(name: string, isCall = false): Entity | undefined {
  if (NOT_IDENTIFIERS.has(name) || /(?:Error|Exception)$/.test(name) || (isCall && CALL_KEYWORDS.has(name))) return undefined;
  return { kind: 'identifier', text: isCall ? `${name}()` : name, key: name };
}

/** Paths, URLs and identifiers, in the order they appear; identifiers inside a path are not repeated. */
export function entitiesOf(text: string): Entity[] {
  const found: Found[] = [];
  collect(text, URL_PATTERN, path, found);
  collect(text, WINDOWS_PATH, path, found);
  const withoutUrls = text.replace(URL_PATTERN, (url) => ' '.repeat(url.length));
  collect(withoutUrls, POSIX_PATH, (match) => (looksLikePath(match) ? path(match) : undefined), found);
  collect(withoutUrls, BARE_FILE, (match) => (hasFileExtension(match) ? path(match) : undefined), found);
  collect(
    withoutUrls,
    CODE_SPAN,
    (span) => (/[/\\]/.test(span) || hasFileExtension(span) ? path(span) : identifier(span.replace(/\(\)$/, ''))),
    found,
  );
  // Identifiers are looked for only outside paths, so "src/parseRow.ts" does not also yield "parseRow".
  let code = withoutUrls;
  for (const { index, entity } of found)
    if (entity.kind === 'path') code = code.slice(0, index) + ' '.repeat(entity.text.length) + code.slice(index + entity.text.length);
  collect(code, CALL, (name) => identifier(name, true), found);
  for (const pattern of [CAMEL_CASE, PASCAL_CASE, SNAKE_CASE, CONSTANT_CASE]) collect(code, pattern, (name) => identifier(name), found);
  const seen = new Set<string>();
  return found
    .sort((first, second) => first.index - second.index)
    .flatMap(({ entity }) => {
      if (seen.has(entity.key)) return [];
      seen.add(entity.key);
      return [entity];
    });
}
