import { z } from 'zod';

/**
 * The two forms of a CSV download (#45, "CSV for people"). `exact`, the default: every value as stored, what a
 * program reading the CSV needs. `safe`: what a person opening the file in a spreadsheet needs — a text cell or
 * column name that starts like a formula (= + - @, a tab, a carriage return) gets a leading apostrophe, so
 * `=HYPERLINK(...)` shows as text instead of running. The web app's download buttons ask for `safe`.
 */
export const SpreadsheetForm = z
  .enum(['exact', 'safe'])
  .describe('CSV only. exact (default): values as stored, for programs. safe: for spreadsheets, a text cell or column name starting with = + - @, a tab or a carriage return gets a leading apostrophe so it cannot run as a formula');
export type SpreadsheetForm = z.infer<typeof SpreadsheetForm>;

/** The query parameter of every CSV download route. */
export const SpreadsheetQuery = z.object({ spreadsheet: SpreadsheetForm.optional() });

/** The sentence each such route's summary ends with, so the OpenAPI document says it where the route is. */
export const SPREADSHEET_SUMMARY = 'CSV is exact by default (for programs); ?spreadsheet=safe prefixes text starting with = + - @, tab or CR with an apostrophe, so a spreadsheet shows it instead of running it as a formula (what the web app downloads)';
