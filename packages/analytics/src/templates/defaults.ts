import type { TemplateParameters } from '../params';
import type { PanelLabels } from '../run';
import { templateOf } from './foot-traffic';

const lastFullYear = (labels: PanelLabels) => {
  const last = labels.lastVisitDate ? new Date(`${labels.lastVisitDate}T00:00:00Z`) : new Date();
  // The last month that is complete in the data, and the eleven before it.
  const lastDay = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 0)).getUTCDate();
  const endMonth = last.getUTCDate() === lastDay ? last.getUTCMonth() : last.getUTCMonth() - 1;
  const end = new Date(Date.UTC(last.getUTCFullYear(), endMonth, 1));
  const start = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - 11, 1));
  const m = (d: Date) => d.toISOString().slice(0, 7);
  return { periodType: 'MONTHLY' as const, start: m(start), end: m(end) };
};

/**
 * A query the view can open with before the user picks anything: the first country (else market
 * area), the first chains up to the template's limit (3 at most), the last twelve complete months.
 */
export function defaultParameters(templateId: string, labels: PanelLabels): TemplateParameters {
  const t = templateOf(templateId);
  const geos = labels.geographies.availableValues;
  const geography = geos.find((g) => g.startsWith('country:')) ?? geos[0];
  const max = t.queryParameters.find((q) => q.id === 'places')?.maxValues ?? 3;
  const chains = labels.places.availableValues.filter((v) => v.startsWith('chain:'));
  const places = (chains.length > 0 ? chains : labels.places.availableValues).slice(0, Math.min(3, max));
  return {
    geographies: geography ? [geography] : [],
    places,
    period: lastFullYear(labels),
    ...(templateId === 'movement-pivot' ? { pivot: { rows: ['geography', 'place'], columns: ['period'] } } : {}),
  } as TemplateParameters;
}
