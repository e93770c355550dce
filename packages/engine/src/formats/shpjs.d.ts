declare module 'shpjs' {
  import type { FeatureCollection } from 'geojson';
  /** One Shapefile layer from its parts (the .prj and .cpg as text) as GeoJSON, reprojected to WGS84 from its .prj. */
  export default function shp(input: { shp: Uint8Array; dbf?: Uint8Array; prj?: string; cpg?: string }): Promise<FeatureCollection>;
}
