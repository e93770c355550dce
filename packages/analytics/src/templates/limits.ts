import { badInput } from '@studio/schema';
import type { TemplateParameters } from '../params';
import type { AnalyticTemplate } from './types';

const noun = { geographies: ['geography', 'geographies'], places: ['chain or category', 'chains or categories'] } as const;

/** Selection limits of analytics-and-admin §5; a request over them fails with 422 before any query runs. */
export function checkLimits(template: AnalyticTemplate, p: TemplateParameters): void {
  const view = template.title;
  for (const key of ['geographies', 'places'] as const) {
    const q = template.queryParameters.find((x) => x.id === key);
    const n = p[key].length;
    const [one, many] = template.id === 'cross-visitation' && key === 'places' ? ['chain', 'chains'] : noun[key];
    if (q?.required && n === 0) throw badInput(`${view} needs at least one ${one}`);
    if (q?.maxValues !== undefined && n > q.maxValues) {
      throw badInput(
        `${view} takes at most ${q.maxValues} ${q.maxValues === 1 ? one : many} (got ${n})`,
        `${key}: ${p[key].join(', ')}`,
      );
    }
  }
  if (template.id === 'indexed-foot-traffic' && p.geographies.length > 1 && p.places.length > 1) {
    throw badInput(
      'Indexed Foot Traffic takes either one geography with up to 7 chains or categories, or one chain or category with up to 7 geographies',
      `got ${p.geographies.length} geographies and ${p.places.length} chains or categories`,
    );
  }
  if (template.id === 'cross-visitation') {
    const other = p.places.filter((v) => !v.startsWith('chain:'));
    if (other.length > 0) throw badInput('Cross-Visitation compares chains only', `not a chain: ${other.join(', ')}`);
  }
}
