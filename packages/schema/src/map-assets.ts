import { z } from 'zod';
import { StudioRecord } from './records';

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

const MapAssetCreateShape = z.discriminatedUnion('assetType', [
  z.object({ assetType: z.literal('map-style'), name: Name, description: Description.default(''), ...styleFields }),
  z.object({ assetType: z.literal('color-palette'), name: Name, description: Description.default(''), palette: Palette }),
]);
export const MapAssetCreate = withAssetType(MapAssetCreateShape);
export type MapAssetCreate = z.infer<typeof MapAssetCreate>;
/** What a client sends to create an asset. */
export type MapAssetCreateBody = z.input<typeof MapAssetCreateShape>;

const MapAssetUpdateShape = z.discriminatedUnion('assetType', [
  z.object({ assetType: z.literal('map-style'), name: Name.optional(), description: Description.optional(), ...styleFields }),
  z.object({ assetType: z.literal('color-palette'), name: Name.optional(), description: Description.optional(), palette: Palette.optional() }),
]);
export const MapAssetUpdate = withAssetType(MapAssetUpdateShape);
export type MapAssetUpdate = z.infer<typeof MapAssetUpdate>;
/** What a client sends to change an asset (fields left out are kept). */
export type MapAssetUpdateBody = z.input<typeof MapAssetUpdateShape>;

/**
 * What the studio checks of an uploaded style file (and the editor before it uploads): a MapLibre style
 * document, version 8, with its sources and a list of layers that each have an id and a type. The rest
 * (paint, filters, expressions) is the renderer's business; a style it cannot draw shows its background.
 */
export const STYLE_FILE_MESSAGE = 'Style file must be a MapLibre style: a JSON object with version 8, sources and layers';
export const MapLibreStyle = z.looseObject({
  version: z.literal(8),
  sources: z.record(z.string(), z.looseObject({ type: z.string() })),
  layers: z.array(z.looseObject({ id: z.string().min(1), type: z.string().min(1) })).max(5_000),
});
export type MapLibreStyle = z.infer<typeof MapLibreStyle>;

/** The style in `text`, or the one message that says why it is not a style. */
export function parseStyleFile(text: string): { style: MapLibreStyle } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: `${STYLE_FILE_MESSAGE} (the file is not JSON)` };
  }
  const parsed = MapLibreStyle.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { error: `${STYLE_FILE_MESSAGE} (${issue.path.join('.') || 'document'}: ${issue.message})` };
  }
  return { style: parsed.data };
}

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
/** A map style or color palette as the catalog answers it: the record and its asset fields. */
export const MapAssetItem = StudioRecord.extend(MapAssetFields.shape);
export type MapAssetItem = z.infer<typeof MapAssetItem>;

export const MapAssetListQuery = z.object({ type: MapAssetType.optional() });
export const MapAssetGetQuery = z.object({ type: MapAssetType.optional() });

/** POST /v1/map-assets/{id}/files: one of the two asks for a signed upload policy. */
export const MapAssetFileRequest = z.union([
  z.object({ assetContentType: z.enum(MAP_STYLE_CONTENT_TYPES) }).strict(),
  z.object({ thumbnailContentType: z.enum(ASSET_THUMBNAIL_TYPES) }).strict(),
]);
export type MapAssetFileRequest = z.infer<typeof MapAssetFileRequest>;
