// csv-lite: a small RFC 4180 CSV parser.

export interface ParseOptions {
  /** The field separator (default ','). */
  delimiter?: string;
}

export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

type State = 'field-start' | 'unquoted' | 'quoted' | 'quote-in-quoted';

export function parseCsv(text: string, options: ParseOptions = {}): string[][] {
  const delimiter = options.delimiter ?? ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let state: State = 'field-start';
  let line = 1;

  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    if (field !== '') endField();
    rows.push(row);
    row = [];
    line++;
  };

  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    switch (state) {
      case 'field-start':
        if (char === '"') state = 'quoted';
        else if (char === delimiter) endField();
        else if (char === '\n') endRow();
        else if (char !== '\r') {
          field += char;
          state = 'unquoted';
        }
        break;
      case 'unquoted':
        if (char === delimiter) {
          endField();
          state = 'field-start';
        } else if (char === '\n') {
          endRow();
          state = 'field-start';
        } else if (char === '"') {
          throw new CsvError('a quote inside an unquoted field', line);
        } else if (char !== '\r') field += char;
        break;
      case 'quoted':
        if (char === '"') state = 'quote-in-quoted';
        else {
          if (char === '\n') line++;
          field += char;
        }
        break;
      case 'quote-in-quoted':
        if (char === '"') {
          field += '"';
          state = 'quoted';
        } else if (char === delimiter) {
          endField();
          state = 'field-start';
        } else if (char === '\n') {
          endRow();
          state = 'field-start';
        } else if (char !== '\r') throw new CsvError('text after a closing quote', line);
        break;
    }
  }
  if (state === 'quoted') throw new CsvError('a quoted field is not closed', line);
  if (field !== '' || row.length > 0) endRow();
  return rows;
}
