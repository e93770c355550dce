import { useCallback, useContext, type ComponentProps } from 'react';
import { DataTableFactory } from '@kepler.gl/components';
import { parseFieldValue } from '@kepler.gl/utils';
import { TimeZoneContext } from './TimeZoneChooser';
import { zonedFormatter } from './zones';

type Table = ReturnType<typeof DataTableFactory>;
type RowCell = NonNullable<ComponentProps<Table>['getRowCell']>;
type CellProps = Parameters<RowCell>[0];

/**
 * A cell of kepler's data table, its timestamps in the viewer's zone. kepler 3.2 formats a timestamp cell with
 * its column's display format through `datetimeFormatter(null)`, in UTC whatever the zone chosen; its table
 * takes a `getRowCell` for reading a cell, which this is: kepler's own reading (the sort order, the empty cell),
 * with a timestamp column formatted in `zone` by the same formatter as the tooltips, in the column's format.
 */
export function zonedRowCell(zone: string): RowCell {
  return ({ dataContainer, columns, column, colMeta, rowIndex, sortOrder }: CellProps, formatter: ((v: unknown) => string) | null) => {
    const row = sortOrder && sortOrder.length ? sortOrder[rowIndex]! : rowIndex;
    const meta = colMeta[column]!;
    const value: unknown = dataContainer?.valueAt(row, columns.indexOf(column));
    if (value === null || value === undefined || value === '') return '';
    if (meta.type === 'timestamp') return zonedFormatter(zone, typeof meta.displayFormat === 'string' ? meta.displayFormat : undefined)(value as number);
    return formatter ? formatter(value) : parseFieldValue(value, meta.type);
  };
}

export function StudioDataTableFactory(...deps: Parameters<typeof DataTableFactory>) {
  const Base = DataTableFactory(...deps);
  const StudioDataTable = (props: ComponentProps<Table>) => {
    const zone = useContext(TimeZoneContext);
    const getRowCell = useCallback<RowCell>((cell, formatter) => zonedRowCell(zone)(cell, formatter), [zone]);
    return <Base {...props} getRowCell={getRowCell} />;
  };
  return StudioDataTable;
}
StudioDataTableFactory.deps = DataTableFactory.deps;
