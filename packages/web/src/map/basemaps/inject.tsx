import type { ComponentProps } from 'react';
import { ColorRangeSelectorFactory, injectComponents } from '@kepler.gl/components';
import { KEPLER_COLOR_PALETTES } from '@kepler.gl/constants';
import { getStudioPalettes } from './palettes';

/**
 * kepler 3.2's color range picker takes its palettes from a `colorPalettes` prop that none of its
 * callers set (it falls back to KEPLER_COLOR_PALETTES). kepler's supported way to change a component
 * is dependency injection: this factory replaces the picker with one that passes the studio's palette
 * assets first, then kepler's own.
 */
function StudioColorRangeSelectorFactory(...deps: Parameters<typeof ColorRangeSelectorFactory>) {
  const Base = ColorRangeSelectorFactory(...deps);
  const StudioColorRangeSelector = (props: ComponentProps<typeof Base>) => <Base {...props} colorPalettes={[...getStudioPalettes(), ...KEPLER_COLOR_PALETTES]} />;
  return StudioColorRangeSelector;
}
StudioColorRangeSelectorFactory.deps = ColorRangeSelectorFactory.deps;

/** KeplerGl with the studio's replacements; same props as kepler's own. */
export const StudioKeplerGl: unknown = injectComponents([[ColorRangeSelectorFactory, StudioColorRangeSelectorFactory]] as never);
