import { z } from 'zod';

/** Map assets (catalog §3): map styles and color palettes, one resource type told apart by assetType. */
export const MAP_ASSET_TYPES = ['map-style', 'color-palette'] as const;
export const MapAssetType = z.enum(MAP_ASSET_TYPES);
export type MapAssetType = z.infer<typeof MapAssetType>;

export const MAP_STYLE_CONTENT_TYPES = ['application/json'] as const;
export const ASSET_THUMBNAIL_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

const Name = z.string().trim().min(1, 'Name must not be empty').max(500);
const Description = z.string().max(10_000);
const HttpUrl = z
  .string()
  .max(2048)
  .refine((s) => /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s), 'externalUrl must be an http(s) URL');
/** A Mapbox / MapLibre style document: a JSON object (its inner shape is the renderer's business). */
const StyleJson = z.record(z.string(), z.unknown()).refine((s) => JSON.stringify(s).length <= 5_000_000, 'Style is too large');
const HexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Colors must be #rrggbb');
export const Palette = z.object({
  type: z.enum(['sequential', 'diverging', 'qualitative']),
  colors: z.array(HexColor).min(2, 'A palette has 2 to 20 colors').max(20, 'A palette has 2 to 20 colors'),
});
export type Palette = z.infer<typeof Palette>;

const styleFields = {
  externalUrl: HttpUrl.nullable().optional(),
  /** A secret: stored encrypted, answered only as hasAccessToken. null clears it. */
  accessToken: z.string().min(1).max(4096).nullable().optional(),
  style: StyleJson.nullable().optional(),
};

/** Bodies name the kind as assetType (or type, as some clients send it). */
const withAssetType = <T extends z.ZodType>(t: T) =>
  z.preprocess((v) => {
    if (v && typeof v === 'object' && !('assetType' in v) && 'type' in v) {
      const { type, ...rest } = v as Record<string, unknown>;
      return { ...rest, assetType: type };
    }
    return v;
  }, t);

export const MapAssetCreate = withAssetType(
  z.discriminatedUnion('assetType', [
    z.object({ assetType: z.literal('map-style'), name: Name, description: Description.default(''), ...styleFields }),
    z.object({ assetType: z.literal('color-palette'), name: Name, description: Description.default(''), palette: Palette }),
  ]),
);
export type MapAssetCreate = z.infer<typeof MapAssetCreate>;

export const MapAssetUpdate = withAssetType(
  z.discriminatedUnion('assetType', [
    z.object({ assetType: z.literal('map-style'), name: Name.optional(), description: Description.optional(), ...styleFields }),
    z.object({ assetType: z.literal('color-palette'), name: Name.optional(), description: Description.optional(), palette: Palette.optional() }),
  ]),
);
export type MapAssetUpdate = z.infer<typeof MapAssetUpdate>;

/** What `attrs` of a map-asset row hold; rows that fail this are skipped in lists. */
export const StoredMapAsset = z.discriminatedUnion('assetType', [
  z.object({
    assetType: z.literal('map-style'),
    externalUrl: z.string().nullable().optional(),
    accessToken: z.string().nullable().optional(),
    style: z.record(z.string(), z.unknown()).nullable().optional(),
    assetContentType: z.string().nullable().optional(),
    assetKey: z.string().nullable().optional(),
  }),
  z.object({ assetType: z.literal('color-palette'), palette: Palette }),
]);
export type StoredMapAsset = z.infer<typeof StoredMapAsset>;

export const MapAssetFields = z.object({
  assetType: MapAssetType,
  externalUrl: z.string().nullable(),
  hasAccessToken: z.boolean(),
  style: z.record(z.string(), z.unknown()).nullable(),
  palette: Palette.nullable(),
  assetContentType: z.string().nullable(),
  thumbnailContentType: z.string().nullable(),
  readPath: z.string().nullable(),
  thumbnailPath: z.string().nullable(),
});
export type MapAssetFields = z.infer<typeof MapAssetFields>;

export const MapAssetListQuery = z.object({ type: MapAssetType.optional() });
export const MapAssetGetQuery = z.object({ type: MapAssetType.optional() });

/** POST /v1/map-assets/{id}/files: one of the two asks for a signed upload policy. */
export const MapAssetFileRequest = z.union([
  z.object({ assetContentType: z.enum(MAP_STYLE_CONTENT_TYPES) }).strict(),
  z.object({ thumbnailContentType: z.enum(ASSET_THUMBNAIL_TYPES) }).strict(),
]);
export type MapAssetFileRequest = z.infer<typeof MapAssetFileRequest>;
