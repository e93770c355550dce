import { createWriteStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { once } from 'node:events';
import ExcelJS from 'exceljs';
import { StudioError, badInput } from '@studio/schema';
import { assertZipBounds } from './zip-bounds';

/** A cell's value as CSV text: formulas by their result, rich text and links by their text, dates as ISO timestamps. */
export function cellText(v: ExcelJS.CellValue): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().replace('T', ' ').replace(/\.000Z$|Z$/, '');
  if (typeof v !== 'object') return String(v);
  if ('result' in v) return cellText((v as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ('richText' in v) return v.richText.map((r) => r.text).join('');
  if ('text' in v) return String((v as { text: unknown }).text);
  if ('error' in v) return '';
  return JSON.stringify(v);
}

const csvCell = (s: string) => (/[",\n\r]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s);

/**
 * Workbooks are read whole (exceljs's streaming reader fails now and then on a valid file whose zip holds the
 * worksheets before workbook.xml: "Cannot read properties of undefined (reading 'sheets')"), so they take
 * files up to this size (an .xlsx is compressed: its cells take several times as much memory).
 */
export const XLSX_MAX_BYTES = 50 * 1024 * 1024;

/** The most a workbook's parts may hold unzipped (their XML: 10-20 times the .xlsx, so 50 MB of workbook fits). */
export const XLSX_EXPANDED_MAX_BYTES = 1024 * 1024 * 1024;

/**
 * The first worksheet of an .xlsx as CSV. The first row is the header; empty
 * rows are skipped; rows of different widths are left so (the CSV is read with null padding). Answers the
 * data rows written.
 */
export async function xlsxToCsv(input: string, out: string): Promise<number> {
  const { size } = await stat(input);
  if (size > XLSX_MAX_BYTES) throw new StudioError(413, `Excel workbooks are read whole: at most ${XLSX_MAX_BYTES / 2 ** 20} MB`);
  // exceljs unzips through JSZip with no cap: the archive is checked, and its stated sizes proven, first.
  const bytes = await readFile(input);
  await assertZipBounds(bytes, 'the Excel workbook', XLSX_EXPANDED_MAX_BYTES);
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  } catch (e) {
    throw badInput(`Could not read the Excel workbook: ${String((e as Error).message ?? e).split('\n')[0]}`);
  }
  const ws = workbook.worksheets[0];
  if (!ws) throw badInput('The workbook has no sheet');
  const file = createWriteStream(out);
  let rows = 0;
  try {
    for (let i = 1; i <= ws.rowCount; i++) {
      const values = (ws.getRow(i).values as ExcelJS.CellValue[]).slice(1).map(cellText);
      if (!values.some((v) => v !== '')) continue;
      if (!file.write(`${values.map(csvCell).join(',')}\n`)) await once(file, 'drain');
      rows++;
    }
  } finally {
    file.end();
    await once(file, 'close');
  }
  if (!rows) throw badInput('The sheet is empty');
  return rows - 1;
}
