import { LayerClasses, VectorTileLayer } from '@kepler.gl/layers';
import { cancelTilesThatLeaveTheView } from './tile-signals';

/** kepler.gl's vector tile layer whose tile requests stop when their tiles leave the view (tile-signals.ts). */
export class StudioVectorTileLayer extends VectorTileLayer {
  override formatLayerData(...args: Parameters<VectorTileLayer['formatLayerData']>): ReturnType<VectorTileLayer['formatLayerData']> {
    const data = super.formatLayerData(...args);
    cancelTilesThatLeaveTheView(data.tileSource);
    return data;
  }
}

/** The layer types every map store offers: kepler's own, with the vector tile layer above in its place. */
export const STUDIO_LAYER_CLASSES = { ...LayerClasses, vectorTile: StudioVectorTileLayer };
