/**
 * DuckDB's advice for a name that lives in one of its extensions ("…but it exists in the excel extension. Please try
 * installing and loading…: INSTALL excel; LOAD excel; … SET autoinstall_known_extensions=1") is advice a studio user
 * cannot follow: user SQL runs on locked instances that load no extension (locked-instances.ts). The message names
 * what is missing in the studio's terms, with the studio's own way to the same result where there is one.
 */
const EXTENSION_ADVICE = /(?:(?:Catalog|Binder) Error: )?(?:[\w ]*?) with name "?([^"\s]+?)"? is not in the catalog, but it exists in the \w+ extension\.[\s\S]*/;

/** The studio's way to what an extension's function does, by the function's lower-case name. */
const STUDIO_EQUIVALENTS: Record<string, string> = {
  read_xlsx: 'upload the spreadsheet as a dataset and query it by its table name',
  excel_text: 'format numbers with printf() or format(), dates with strftime()',
  read_json_objects: 'upload the JSON as a dataset and query it by its table name',
};

export function engineAdvice(message: string): string {
  const found = EXTENSION_ADVICE.exec(message);
  if (!found) return message;
  const name = found[1]!;
  const instead = STUDIO_EQUIVALENTS[name.toLowerCase()];
  return message.slice(0, found.index) + `\`${name}\` is not available in the studio's SQL${instead ? ` (${instead})` : ''}`;
}
