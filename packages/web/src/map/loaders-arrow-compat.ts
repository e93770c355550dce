/**
 * `@loaders.gl/arrow` as kepler.gl 3.2.6 imports it (vite.config.ts sends kepler's imports of it here, and only
 * kepler's). Kepler's GeoArrow paths (getGeojsonLayerMetaFromArrow, its WKB path, hover and the cell formatter)
 * call getBinaryGeometriesFromArrow, updateBoundsFromGeoArrowSamples and parseGeometryFromArrow from it; loaders.gl
 * 4.5 (what kepler's `^4.3.2` resolves to) moved them to @loaders.gl/gis and @loaders.gl/geoarrow with the same
 * arguments and answers, so without these a GeoArrow column threw "getBinaryGeometriesFromArrow is not a function".
 */
export * from '@loaders.gl/arrow';
export { getBinaryGeometriesFromArrow, convertGeoArrowGeometryToGeoJSON as parseGeometryFromArrow } from '@loaders.gl/gis';
export { updateBoundsFromGeoArrowSamples } from '@loaders.gl/geoarrow';
