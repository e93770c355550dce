import { mapPublishingCalls, type Answer, type BodyOf, type PublishedMap, type StudioRecord, type UploadOptions } from '@studio/schema';
import type { HttpClient } from './http';

export type { PublishedMapInfo, PublishedMap, FeaturedMap } from '@studio/schema';
/** What POST …/published-map/password answers beside the map: readers' access for a few minutes. */
export type MapGrant = NonNullable<Answer<typeof mapPublishingCalls.unlockPublishedMap>['grant']>;

/** Maps: kepler.gl files, and publishing (catalog §7 Maps): {x} of POST /publish/{x} is `map` (the saved state and datasets, snapshotted). */
export function mapsClient(c: HttpClient) {
  return {
    /** A kepler.gl export file ({datasets, config, info}) as a new map with a dataset per dataset of the file. */
    importKepler: (file: unknown) => c.request<{ item: StudioRecord }>('POST', '/v1/maps/import/kepler', { body: file }).then((r) => r.item),
    /** The saved map as a kepler.gl file, its datasets' rows included. */
    exportKepler: (id: string) => c.raw('GET', `/v1/maps/${id}/export/kepler`).then((r) => r.blob()),
    /** `password`: a string sets it, null removes it, absent keeps the previous one. */
    publish: (id: string, body: BodyOf<typeof mapPublishingCalls.publish> = {}) => c.call(mapPublishingCalls.publish, { params: { id, x: 'map' }, body }).then((r) => r.item),
    /** CAT-159: publish with the upload options maps, insights and reports share (password, title, description). */
    publishWith: (id: string, uploadOptions: UploadOptions) => c.call(mapPublishingCalls.publishWith, { params: { id }, body: { uploadOptions } }).then((r) => r.item),
    unpublish: (id: string) => c.call(mapPublishingCalls.unpublish, { params: { id } }),
    published: () => c.call(mapPublishingCalls.published, {}),
    publishedSamples: () => c.call(mapPublishingCalls.publishedSamples, {}),
    publishedList: (ids: string[]) => c.call(mapPublishingCalls.publishedList, { query: { maps: ids.join(',') } }),
    /** Works without signing in; a protected map answers 401 (details passwordRequired) to strangers. */
    publishedMap: (id: string, infoOnly = false) =>
      // Without infoOnly the answer is the whole map (the contract's first branch); with it, only its info.
      c.call(mapPublishingCalls.publishedMap, { params: { id }, query: { infoOnly: infoOnly || undefined } }).then((r) => r.item as PublishedMap),
    publishedMapWithPassword: (id: string, password: string) => c.call(mapPublishingCalls.unlockPublishedMap, { params: { id }, body: { password } }).then((r) => r.item),
    /**
     * The protected map and a short-lived grant: send `grant.token` in the `x-map-grant` header of the
     * map's dataset and tile-link calls instead of the password (wrong passwords back off: 429).
     */
    unlockPublishedMap: (id: string, password: string) =>
      c.call(mapPublishingCalls.unlockPublishedMap, { params: { id }, body: { password } }).then((r) => ({ map: r.item, grant: r.grant })),
    featured: () => c.call(mapPublishingCalls.featured, {}),
    feature: (body: BodyOf<typeof mapPublishingCalls.feature>) => c.call(mapPublishingCalls.feature, { body }).then((r) => r.item),
    updateFeatured: (id: string, body: BodyOf<typeof mapPublishingCalls.updateFeatured>) => c.call(mapPublishingCalls.updateFeatured, { params: { id }, body }).then((r) => r.item),
    unfeature: (id: string) => c.call(mapPublishingCalls.unfeature, { params: { id } }),
    highlight: (id: string) => c.call(mapPublishingCalls.highlight, { params: { id } }).then((r) => r.item),
  };
}
