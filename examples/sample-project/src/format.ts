// Writing rows back as CSV text.

export function formatCsv(rows: readonly (readonly string[])[], delimiter = ','): string {
  return rows.map((row) => row.map((field) => quote(field, delimiter)).join(delimiter)).join('\n');
}

function quote(field: string, delimiter: string): string {
  if (!field.includes(delimiter) && !field.includes('"') && !field.includes('\n')) return field;
  return `"${field.replaceAll('"', '""')}"`;
}
