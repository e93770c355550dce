import type { z } from 'zod';
import { databaseQueryNode } from './databaseQuery';
import { datasetNode } from './dataset';
import { enrichNode } from './enrich';
import { filterNode } from './filter';
import { groupNode } from './group';
import { hexifyNode } from './hexify';
import { hexTileNode } from './hexTile';
import { inlineDataNode } from './inlineData';
import { joinNode } from './join';
import { limitNode } from './limit';
import { selectNode } from './select';
import { sortNode } from './sort';
import { tileExtractNode } from './tileExtract';
import { tileJoinNode } from './tileJoin';
import { tileQuantilesNode } from './tileQuantiles';
import { aggregateInPolygonsNode } from './aggregateInPolygons';
import { bufferNode } from './buffer';
import { centroidNode } from './centroid';
import { clipNode } from './clip';
import { dissolveNode } from './dissolve';
import { measureNode } from './measure';
import { nearestNode } from './nearest';
import { spatialJoinNode } from './spatialJoin';

/** How many inputs each node type takes: [min, max]. Source nodes take none. */
export const NODE_SPECS = {
  dataset: { schema: datasetNode, inputs: [0, 0] },
  inline_data: { schema: inlineDataNode, inputs: [0, 0] },
  select: { schema: selectNode, inputs: [1, 1] },
  filter: { schema: filterNode, inputs: [1, 1] },
  group: { schema: groupNode, inputs: [1, 1] },
  sort: { schema: sortNode, inputs: [1, 1] },
  limit: { schema: limitNode, inputs: [1, 1] },
  join: { schema: joinNode, inputs: [2, 2] },
  enrich: { schema: enrichNode, inputs: [1, 1] },
  hexify: { schema: hexifyNode, inputs: [0, 0] },
  tileExtract: { schema: tileExtractNode, inputs: [0, 0] },
  databaseQuery: { schema: databaseQueryNode, inputs: [0, 0] },
  hexTile: { schema: hexTileNode, inputs: [0, 0] },
  tileJoin: { schema: tileJoinNode, inputs: [2, Infinity] },
  tileQuantiles: { schema: tileQuantilesNode, inputs: [0, 0] },
  // Spatial steps (docs/spatial-sql.md "Pipeline steps"); two-input ones read [features or polygons, the other side].
  spatialJoin: { schema: spatialJoinNode, inputs: [2, 2] },
  aggregateInPolygons: { schema: aggregateInPolygonsNode, inputs: [2, 2] },
  nearest: { schema: nearestNode, inputs: [2, 2] },
  buffer: { schema: bufferNode, inputs: [1, 1] },
  centroid: { schema: centroidNode, inputs: [1, 1] },
  measure: { schema: measureNode, inputs: [1, 1] },
  dissolve: { schema: dissolveNode, inputs: [1, 1] },
  clip: { schema: clipNode, inputs: [2, 2] },
} as const satisfies Record<string, { schema: z.ZodType; inputs: readonly [number, number] }>;

export type NodeType = keyof typeof NODE_SPECS;
export const NODE_TYPES = Object.keys(NODE_SPECS) as NodeType[];

type Props<T extends NodeType> = z.infer<(typeof NODE_SPECS)[T]['schema']>;
/** A validated node: its own props (z.infer of its validator) plus validated inputs. */
export type PipelineNode = { [T in NodeType]: Props<T> & { type: T; input: PipelineNode[] } }[NodeType];
export type NodeOf<T extends NodeType> = Extract<PipelineNode, { type: T }>;

export * from './common';
export { UNSUPPORTED_GEOMETRY, polygonsOf } from './geojson';
export { POLYGON_AGGREGATES } from './aggregateInPolygons';
export { MAX_NEAREST_K } from './nearest';
