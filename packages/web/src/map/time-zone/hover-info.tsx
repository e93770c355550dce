import { useContext, useMemo } from 'react';
import { LayerHoverInfoFactory } from '@kepler.gl/components';
import { TimeZoneContext } from './TimeZoneChooser';
import { zonedFormatter } from './zones';

type Accessor = (field: FieldLike, data: unknown) => unknown;
type FieldLike = { name: string; type: string; displayFormat?: unknown };
type LayerLike = { accessVSFieldValue(field: FieldLike, time?: unknown): Accessor };
type ItemLike = { name: string; format?: string | null };
interface HoverProps {
  layer?: LayerLike;
  fields?: FieldLike[];
  fieldsToShow?: ItemLike[];
  [prop: string]: unknown;
}

/**
 * The tooltip's timestamps in the viewer's zone. kepler 3.2 formats a tooltip value with moment in UTC whatever
 * the format (its `datetimeFormatter(null)`; the zone option exists only on filters and the playback), so this
 * hands kepler's own hover info the timestamp fields as text already formatted in the zone: the field shown as a
 * string, read through the layer's own accessor (trips, GeoJSON and tile layers each have theirs), the format the
 * tooltip item or the field asks for. Everything else passes through unchanged.
 */
export function zonedHoverProps(props: HoverProps, zone: string): HoverProps {
  const { layer, fields, fieldsToShow } = props;
  if (!layer || !fields?.some((f) => f.type === 'timestamp')) return props;
  const formats = new Map((fieldsToShow ?? []).map((item) => [item.name, item.format ?? undefined]));
  const originals = new Map<FieldLike, FieldLike>();
  const zonedFields = fields.map((f) => {
    if (f.type !== 'timestamp') return f;
    const copy = { ...f, type: 'string', displayFormat: undefined };
    originals.set(copy, f);
    return copy;
  });
  const zonedLayer = Object.create(layer, {
    accessVSFieldValue: {
      value: (field: FieldLike, time?: unknown): Accessor => {
        const original = originals.get(field);
        if (!original) return layer.accessVSFieldValue(field, time);
        const read = layer.accessVSFieldValue(original, time);
        const format = zonedFormatter(zone, formats.get(original.name) ?? (typeof original.displayFormat === 'string' ? original.displayFormat : undefined));
        return (_f, data) => {
          const v = read(original, data);
          return v === null || v === undefined || v === '' ? v : format(v as number);
        };
      },
    },
  }) as LayerLike;
  // The item's own format is applied above; kepler would format the text again as a date.
  const items = (fieldsToShow ?? []).map((item) => (fields.some((f) => f.name === item.name && f.type === 'timestamp') ? { ...item, format: null } : item));
  return { ...props, layer: zonedLayer, fields: zonedFields, fieldsToShow: items };
}

export function StudioLayerHoverInfoFactory() {
  const Base = LayerHoverInfoFactory();
  const StudioLayerHoverInfo = (props: HoverProps) => {
    const zone = useContext(TimeZoneContext);
    const zoned = useMemo(() => zonedHoverProps(props, zone), [props, zone]);
    return <Base {...zoned} />;
  };
  return StudioLayerHoverInfo;
}
