import { spreadsheetText } from '@studio/engine';

/** One CSV field: quoted when it must be, objects (GeoJSON) as JSON text, empty for null. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * A field for a file people open in a spreadsheet: text that starts like a formula (=, +, -, @, a tab or a
 * carriage return) gets a leading apostrophe, so a value someone typed (a map's name, an email) cannot run as
 * a formula in Excel or Sheets (OWASP "CSV injection"; the rule is the engine's `spreadsheetText`, which its
 * CSV downloads apply in SQL). Numbers stay numbers.
 */
export function spreadsheetField(value: unknown): string {
  return csvField(typeof value === 'string' ? spreadsheetText(value) : value);
}

/** One CSV line (with its newline) of the fields. */
export const csvLine = (fields: unknown[], field: (v: unknown) => string = csvField) => `${fields.map(field).join(',')}\n`;
