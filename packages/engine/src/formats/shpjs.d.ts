declare module 'shpjs' {
  import type { FeatureCollection } from 'geojson';
  /** A zipped Shapefile (or several) as GeoJSON, reprojected to WGS84 from its .prj; one collection per .shp. */
  export default function shp(input: ArrayBuffer | Uint8Array): Promise<(FeatureCollection & { fileName?: string }) | (FeatureCollection & { fileName?: string })[]>;
}
