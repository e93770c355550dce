import { LayerDefaultLegend, LayerLegendContentFactory, VisualChannelMetric } from '@kepler.gl/components';
import { formatNumber } from '@kepler.gl/utils';
import { sizeTicks, sqrtRadius } from './size-ticks';

/**
 * Manual labels on a layer's size (radius) legend, as kepler 3.2 has them on its colour legend (kepler.gl #533):
 * kepler draws the radius legend with a component that is no factory (LayerRadiusLegend), so no injection reaches
 * it; the studio injects the legend content around it (LayerLegendContentFactory) and draws the size legend itself,
 * each value's label an input in the builder and text for readers (`disableEdit`) and in the PNG and video export
 * (`isExport`), as kepler does for colours. The labels live in the layer's visConfig at `studioSizeLabels` (value
 * -> label) while the map is open; kepler's loader keeps no visConfig key it does not know, so the map state saves
 * them (`sizeLegends`, size-labels.ts).
 */
export const SIZE_LABELS = 'studioSizeLabels';
export type SizeLabels = Record<string, string>;

/** The biggest circle the legend draws, in pixels: the legend's width is kepler's 178 less its padding. */
const MAX_R = 18;

type Channel = { key: string; field: string; scale: string; domain: string; range: string; channelScaleType: string; condition?: (config: unknown) => boolean; defaultMeasure?: unknown };
type LegendLayer = {
  id: string;
  config: Record<string, unknown> & { visConfig: Record<string, unknown> };
  getLegendVisualChannels(): Record<string, Channel>;
  getVisualChannelDescription(key: string): { label?: string; measure?: string } | undefined;
};
type ContentProps = {
  layer: LegendLayer;
  containerW: number;
  mapState?: unknown;
  disableEdit?: boolean;
  isExport?: boolean;
  onLayerVisConfigChange?: (layer: LegendLayer, change: Record<string, unknown>) => void;
  actionIcons?: unknown;
};

const isColor = (c: Channel) => c.channelScaleType === 'color' || c.channelScaleType === 'colorAggr';

/** One layer's size legend: a circle and a label per value (sizeTicks). */
export function SizeLegend({ layer, channel, editable, onLabel }: { layer: LegendLayer; channel: Channel; editable: boolean; onLabel: (value: string, label: string) => void }) {
  const { config } = layer;
  const measure = layer.getVisualChannelDescription(channel.key)?.measure;
  const domain = config[channel.domain];
  const field = config[channel.field] as { type?: string } | null;
  if (!measure || config[channel.scale] !== 'sqrt' || !Array.isArray(domain)) return null;
  const ticks = sizeTicks(domain as number[]);
  if (!ticks.length) return null;
  const labels = (config.visConfig[SIZE_LABELS] ?? {}) as SizeLabels;
  const range = [MAX_R * Math.sqrt(Math.max(0, ticks[0]!) / Math.max(1e-12, ticks[ticks.length - 1]!)), MAX_R];
  return (
    <div className="legend--layer_size-schema studio-size-legend">
      <VisualChannelMetric name={measure} />
      {ticks.map((v) => {
        const key = String(v);
        const shown = formatNumber(v, field?.type || 'real');
        const r = Math.max(1.5, sqrtRadius(v, domain as number[], range));
        const label = labels[key] ?? shown;
        return (
          <div key={key} className="studio-size-legend__row">
            <svg width={MAX_R * 2 + 2} height={r * 2 + 2} aria-hidden="true">
              <circle cx={MAX_R + 1} cy={r + 1} r={r} />
            </svg>
            {editable ? (
              <input className="legend__label__title__editor studio-size-legend__editor" aria-label={`Size legend label for ${shown}`} value={label} onChange={(e) => onLabel(key, e.target.value)} />
            ) : (
              <span className="studio-size-legend__label">{label}</span>
            )}
          </div>
        );
      })}
    </div>
  );
}

/** kepler's legend content with the studio's size legend in place of kepler's radius legend; the rest as kepler renders it. */
export function StudioLayerLegendContentFactory(...deps: Parameters<typeof LayerLegendContentFactory>) {
  const [LayerColorLegend] = deps;
  const StudioLayerLegendContent = ({ layer, mapState, disableEdit, isExport, onLayerVisConfigChange, actionIcons }: ContentProps) => {
    const channels = Object.values(layer.getLegendVisualChannels());
    const applies = (c: Channel) => !c.condition || c.condition(layer.config);
    const colours = channels.filter(isColor).filter(applies);
    // As kepler: the colour channels coloured by a field, or, with none, the layer's own colour.
    const measured = colours.filter((c) => layer.getVisualChannelDescription(c.key)?.measure);
    const editable = !disableEdit && !isExport && Boolean(onLayerVisConfigChange);
    const onLabel = (value: string, label: string) => onLayerVisConfigChange?.(layer, { [SIZE_LABELS]: { ...((layer.config.visConfig[SIZE_LABELS] ?? {}) as SizeLabels), [value]: label } });
    const Colour = LayerColorLegend as unknown as (p: Record<string, unknown>) => JSX.Element;
    return (
      <>
        {(measured.length ? measured : colours).map((c) => (
          <Colour key={c.key} colorChannel={c} config={layer.config} description={layer.getVisualChannelDescription(c.key)} layer={layer} isExport={isExport} disableEdit={disableEdit} mapState={mapState} onLayerVisConfigChange={onLayerVisConfigChange} actionIcons={actionIcons} />
        ))}
        {channels
          .filter((c) => !isColor(c) && applies(c) && (layer.config[c.field] || c.defaultMeasure))
          .map((c) => {
            if (c.channelScaleType === 'radius') return <SizeLegend key={c.key} layer={layer} channel={c} editable={editable} onLabel={onLabel} />;
            const description = layer.getVisualChannelDescription(c.key);
            return <LayerDefaultLegend key={c.key} label={description?.label ?? ''} name={description?.measure ?? ''} />;
          })}
      </>
    );
  };
  return StudioLayerLegendContent;
}
StudioLayerLegendContentFactory.deps = LayerLegendContentFactory.deps;
