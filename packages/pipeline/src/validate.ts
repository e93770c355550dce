import { StudioError, badInput } from '@studio/schema';
import { parseExpression, parseItem, parseSortKey } from './expr/parse';
import { NODE_SPECS, NODE_TYPES, type NodeType, type PipelineNode } from './nodes';

export type CheckResult = { ok: true; node: PipelineNode } | { ok: false; path: string; message: string };

/** Deeper pipelines than this are refused (and keep the recursion bounded). */
export const MAX_PIPELINE_DEPTH = 64;

class NodeFailure {
  constructor(readonly path: string, readonly message: string) {}
}

const where = (path: string, type?: string) => `at ${path || 'root'}${type ? ` (${type})` : ''}`;

function check(raw: unknown, path: string, depth: number): PipelineNode {
  if (depth > MAX_PIPELINE_DEPTH) throw new NodeFailure(path, `Pipeline is deeper than ${MAX_PIPELINE_DEPTH} nodes`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new NodeFailure(path, 'A pipeline node must be an object');
  }
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(NODE_SPECS, type)) {
    throw new NodeFailure(path, `Unknown node type: ${typeof type === 'string' ? type : String(type)} (expected one of ${NODE_TYPES.join(', ')})`);
  }
  const spec = NODE_SPECS[type as NodeType];
  const rawInput = (raw as { input?: unknown }).input ?? [];
  if (!Array.isArray(rawInput)) throw new NodeFailure(path, `${type} node: input must be a list of nodes`);
  const [min, max] = spec.inputs;
  if (rawInput.length < min || rawInput.length > max) {
    const want =
      min === 2 && max === 2 ? `${type} node: exactly two inputs are required`
      : type === 'tileJoin' ? 'tileJoin node: at least two inputs are required'
      : min === 0 ? `${type} node: takes no inputs`
      : `${type} node: exactly one input is required`;
    throw new NodeFailure(path, want);
  }
  const parsed = (spec.schema as { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: { message: string }[] } } }).safeParse(raw);
  if (!parsed.success) throw new NodeFailure(path, parsed.error?.issues[0]?.message ?? `${type} node: invalid`);
  try {
    checkExpressions(parsed.data as PipelineNode);
  } catch (e) {
    if (e instanceof StudioError) throw new NodeFailure(path, e.details ? `${e.message} ${e.details}` : e.message);
    throw e;
  }
  const input = rawInput.map((child, i) => check(child, `${path ? `${path}.` : ''}input[${i}]`, depth + 1));
  return { ...(parsed.data as object), type, input } as PipelineNode;
}

/** Non-throwing check; `path` is like `input[0].input[1]` ('' for the root). Pure TS: the web app imports it. */
export function checkPipeline(node: unknown): CheckResult {
  try {
    return { ok: true, node: check(node, '', 0) };
  } catch (e) {
    if (e instanceof NodeFailure) return { ok: false, path: e.path, message: e.message };
    throw e;
  }
}

/** Validates a wire pipeline; throws badInput (422) whose details say where: `at input[0] (filter)`. */
export function validatePipeline(node: unknown): PipelineNode {
  const r = checkPipeline(node);
  if (r.ok) return r.node;
  throw badInput(r.message, where(r.path, typeAt(node, r.path)));
}

function typeAt(root: unknown, path: string): string | undefined {
  let n: unknown = root;
  for (const m of path.matchAll(/input\[(\d+)\]/g)) n = (n as { input?: unknown[] } | undefined)?.input?.[Number(m[1])];
  const t = (n as { type?: unknown } | undefined)?.type;
  return typeof t === 'string' && Object.hasOwn(NODE_SPECS, t) ? t : undefined;
}

export { StudioError };

/** Expressions are parsed during validation too, so syntax errors carry the node's path. */
function checkExpressions(n: PipelineNode): void {
  switch (n.type) {
    case 'filter': parseExpression(n.expression); break;
    case 'select': if (!(n.expressions.length === 1 && n.expressions[0]!.trim() === '*')) n.expressions.forEach(parseItem); break;
    case 'group': [...n.by, ...n.expressions].forEach((s) => parseItem(s)); break;
    case 'sort': n.by.forEach((s) => parseSortKey(s)); break;
    default: break;
  }
}
