// Reads one section of a rendered summary: the lines under its `## heading`, up to the next.

export function sectionText(text: string, heading: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) return '';
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}
