import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import ExcelJS from 'exceljs';
import { badInput } from '@studio/schema';

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
 * The first worksheet of an .xlsx (or the one named `sheet`) as CSV, streamed by exceljs's workbook reader:
 * a row is read and written at a time. The first row is the header; empty rows are skipped; rows of
 * different widths are left so (the CSV is read with null padding). Answers the data rows written.
 */
export async function xlsxToCsv(input: string, out: string, sheet?: string): Promise<number> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, { sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', worksheets: 'emit', entries: 'emit' });
  const file = createWriteStream(out);
  let rows = 0;
  let found = false;
  try {
    for await (const worksheet of reader) {
      const ws = worksheet as unknown as AsyncIterable<ExcelJS.Row> & { name?: string };
      if (found || (sheet && ws.name !== sheet)) {
        for await (const _ of ws) void _; // the reader must be drained to reach the next sheet
        continue;
      }
      found = true;
      for await (const row of ws) {
        const values = (row.values as ExcelJS.CellValue[]).slice(1).map(cellText);
        if (!values.some((v) => v !== '')) continue;
        if (!file.write(`${values.map(csvCell).join(',')}\n`)) await once(file, 'drain');
        rows++;
      }
    }
  } catch (e) {
    throw badInput(`Could not read the Excel workbook: ${String((e as Error).message ?? e).split('\n')[0]}`);
  } finally {
    file.end();
    await once(file, 'close');
  }
  if (!found) throw badInput(sheet ? `The workbook has no sheet named '${sheet}'` : 'The workbook has no sheet');
  if (!rows) throw badInput('The sheet is empty');
  return rows - 1;
}
