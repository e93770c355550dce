import type { ComponentProps } from 'react';
import { ColorRangeSelectorFactory, DataTableFactory, LayerHoverInfoFactory, LayerLegendContentFactory, LayerListFactory, LayerTitleSectionFactory, LoadDataModalFactory, MapControlTooltipFactory, TimeRangeFilterPanelFactory, injectComponents } from '@kepler.gl/components';
import { KEPLER_COLOR_PALETTES } from '@kepler.gl/constants';
import { getStudioPalettes } from '../basemaps/palettes';
import { CatalogPicker } from '../add-data/CatalogPicker';
import { StudioLayerListFactory, StudioLayerTitleSectionFactory, StudioMapControlTooltipFactory } from './accessible-components';
import { StudioLayerHoverInfoFactory } from '../time-zone/hover-info';
import { StudioDataTableFactory } from '../time-zone/data-table';
import { StudioTimeRangeFilterPanelFactory } from '../time-span/EndTimePanel';
import { StudioLayerLegendContentFactory } from '../legend/SizeLegend';

/**
 * kepler's supported way to change one of its components is dependency injection: a factory replaces
 * kepler's own, and every component that uses it gets the replacement. The studio replaces three for what
 * they do (the tooltip and the data table: their times in the viewer's zone, time-zone/hover-info.tsx and data-table.tsx), and three for screen-reader and keyboard users (accessible-components.tsx).
 */

/**
 * kepler 3.2's color range picker takes its palettes from a `colorPalettes` prop that none of its
 * callers set (it falls back to KEPLER_COLOR_PALETTES): this one passes the studio's palette assets
 * first, then kepler's own.
 */
function StudioColorRangeSelectorFactory(...deps: Parameters<typeof ColorRangeSelectorFactory>) {
  const Base = ColorRangeSelectorFactory(...deps);
  const StudioColorRangeSelector = (props: ComponentProps<typeof Base>) => <Base {...props} colorPalettes={[...getStudioPalettes(), ...KEPLER_COLOR_PALETTES]} />;
  return StudioColorRangeSelector;
}
StudioColorRangeSelectorFactory.deps = ColorRangeSelectorFactory.deps;

/**
 * kepler's "Add Data" window loads files into the browser only (its "null loader" with no server):
 * the studio's picks datasets from the catalog, or uploads a file into it, and adds them as Arrow.
 */
function StudioLoadDataModalFactory() {
  return CatalogPicker;
}

/** KeplerGl with the studio's replacements; same props as kepler's own. */
export const StudioKeplerGl: unknown = injectComponents([
  // First: kepler provides a replacement's dependencies as its own factories, so the layer list (whose panel
  // reaches the layer title and the color range picker) would put kepler's back over any replaced before it.
  [LayerListFactory, StudioLayerListFactory],
  [ColorRangeSelectorFactory, StudioColorRangeSelectorFactory],
  [LoadDataModalFactory, StudioLoadDataModalFactory],
  [MapControlTooltipFactory, StudioMapControlTooltipFactory],
  [LayerTitleSectionFactory, StudioLayerTitleSectionFactory],
  [LayerHoverInfoFactory, StudioLayerHoverInfoFactory],
  [DataTableFactory, StudioDataTableFactory],
  // The time filter's end-time field (time-span/): features shown while they last during the playback.
  [TimeRangeFilterPanelFactory, StudioTimeRangeFilterPanelFactory],
  // The size legend with manual labels, in the builder, published views, embeds and exports (legend/SizeLegend.tsx).
  [LayerLegendContentFactory, StudioLayerLegendContentFactory],
] as never);
