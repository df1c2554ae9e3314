// `--prices FILE`, as tune, stats and sessions take it: the dated built-in table, or the file's
// prices laid over it (checked: duplicate keys and impossible prices are refused).

import { BUILT_IN_PRICES, type PriceTable, parsePriceTable } from '../meter/index.js';
import { readJsonFile } from './command-kit.js';
import type { CommandContext } from './context.js';

export function pricesOption(context: CommandContext, file: string | undefined): PriceTable {
  return file === undefined ? BUILT_IN_PRICES : parsePriceTable(readJsonFile(file, context.io.cwd, 'a JSON price table'), file);
}
