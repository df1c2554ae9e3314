// Numbers as error messages and the CLI show them: thousands separators in the whole part.

/** 1048576 → "1,048,576"; -15536 → "-15,536"; 838860.8 or "838860.8" → "838,860.8". */
export function formatCount(value: number | string): string {
  const [whole = '', fraction] = String(value).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
