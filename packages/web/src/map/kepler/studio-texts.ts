/**
 * kepler's own texts that are wrong in the studio: it says it is "a client-side application with no server
 * backend" and that data never leaves the browser, points at Mapbox for styles, and offers cloud sharing the
 * studio does not use (maps are published from the studio's toolbar). kepler merges these over its English
 * messages (the `localeMessages` prop; keys are its flattened message ids).
 */
export const STUDIO_TEXTS: Record<string, Record<string, string>> = {
  en: {
    'fileUploader.disclaimer': 'Files become datasets in your studio catalog, stored by your studio.',
    'modal.addStyle.publishTitle': '2. If the style needs an access token, paste it (optional)',
    'modal.addStyle.publishSubtitle7': 'here. Styles you add under Basemaps in the workspace appear in every map.',
    'modal.addStyle.pasteSubtitle0': 'The address of a MapLibre',
    'modal.addStyle.publishSubtitle1': 'Make a style with any MapLibre style editor, or at',
    'modal.shareMap.shareDisclaimer': 'To share this map by link, save it and publish it from the toolbar above the map.',
    'modal.exportMap.json.selection': 'Export the current map data and config into a single JSON file, to keep a copy or open it in kepler.gl.',
    'modal.exportMap.json.configDisclaimer': 'The map config is included in the JSON file. To reuse it with kepler.gl, pass it to ',
    'modal.iconInfo.description2': ' the studio creates an icon layer for you.',
  },
};
