// Event times (SPEC §2): ISO-8601 in UTC, as Date.prototype.toISOString writes them. The shape
// alone is not enough: Date.parse rolls 2026-02-30 over to 2 March instead of refusing it, so
// each field is held to the calendar (leap years included) and to the clock.

import { describeValue } from './seq.js';

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/;
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** What a time is expected to be, for error messages. */
export const TIME_EXPECTED = 'an ISO-8601 UTC time on a real date, such as 2026-01-31T12:00:00.000Z';

export function isIsoUtc(value: unknown): value is string {
  return timeProblem(value) === undefined;
}

/** Why `value` is not an event time (what was found, for an error message), or undefined when it is one. */
export function timeProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return describeValue(value);
  const match = ISO_UTC.exec(value);
  if (match === null) return describeValue(value);
  // Every event is checked: the description of the value is made only when it is refused.
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6]);
  if (month < 1 || month > 12) return `${describeValue(value)}: there is no month ${month}`;
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) return `${describeValue(value)}: ${MONTH_NAMES[month - 1]} ${year} has ${days} days`;
  if (hour > 23 || minute > 59 || second > 59) return `${describeValue(value)}: not a time of day (hours 00–23, minutes and seconds 00–59)`;
  return undefined;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}
