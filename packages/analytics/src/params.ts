import { z } from 'zod';
import { badInput } from '@studio/schema';

/** Cohort values of the panel (place-visits §1, analytics-and-admin §9). */
export const AGE_COHORTS = ['18-24', '25-34', '35-44', '45-54', '55-64', 'Over 65'] as const;
export const GENDER_COHORTS = ['Female', 'Male'] as const;
export const INCOME_COHORTS = ['Under 25k', '25k-50k', '50k-100k', 'Over 100k'] as const;
export const DAYPARTS = ['Morning', 'Afternoon', 'Evening'] as const;
export const PIVOT_DIMENSIONS = ['geography', 'period', 'place', 'age', 'gender', 'income'] as const;

export const PERIOD_TYPES = ['MONTHLY', 'QUARTERLY', 'DAILY'] as const;
export type PeriodType = (typeof PERIOD_TYPES)[number];

const PERIOD_FORMAT: Record<PeriodType, RegExp> = {
  MONTHLY: /^\d{4}-(0[1-9]|1[0-2])$/,
  QUARTERLY: /^\d{4}-Q[1-4]$/,
  DAILY: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
};
const PERIOD_HINT: Record<PeriodType, string> = { MONTHLY: 'YYYY-MM', QUARTERLY: 'YYYY-Q#', DAILY: 'YYYY-MM-DD' };

export const periodSchema = z.object({
  periodType: z.enum(PERIOD_TYPES),
  start: z.string(),
  end: z.string(),
});
export type Period = z.infer<typeof periodSchema>;

export const pivotSchema = z.object({
  rows: z.array(z.enum(PIVOT_DIMENSIONS)).default([]),
  columns: z.array(z.enum(PIVOT_DIMENSIONS)).default([]),
});

export const parametersSchema = z.object({
  geographies: z.array(z.string().regex(/^(country|dma):.+$/, 'must be country:<code> or dma:<id>')).default([]),
  places: z.array(z.string().regex(/^(chain|category):.+$/, 'must be chain:<id> or category:<id>')).default([]),
  period: periodSchema,
  age: z.array(z.enum(AGE_COHORTS)).optional(),
  gender: z.array(z.enum(GENDER_COHORTS)).optional(),
  income: z.array(z.enum(INCOME_COHORTS)).optional(),
  pivot: pivotSchema.optional(),
});
export type TemplateParameters = z.infer<typeof parametersSchema>;
export const bodySchema = z.object({ parameters: parametersSchema });

export interface Selection {
  kind: string;
  id: string;
}
export const parseSelection = (value: string): Selection => {
  const at = value.indexOf(':');
  return { kind: value.slice(0, at), id: value.slice(at + 1) };
};

/** Calendar arithmetic on plain dates, in UTC so that no zone ever shifts a label. */
const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d));
export const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** First day of the first period and first day after the last period, as YYYY-MM-DD. */
export function periodBounds(period: Period): { from: string; until: string } {
  const { periodType: t, start, end } = period;
  if (!PERIOD_FORMAT[t].test(start) || !PERIOD_FORMAT[t].test(end)) {
    throw badInput(`A ${t} period is written ${PERIOD_HINT[t]}`, `got start=${start} end=${end}`);
  }
  const first = periodStart(t, start);
  const lastStart = periodStart(t, end);
  if (first > lastStart) throw badInput('The period starts after it ends', `${start} > ${end}`);
  const last = new Date(`${lastStart}T00:00:00Z`);
  const after =
    t === 'DAILY'
      ? utc(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate() + 1)
      : utc(last.getUTCFullYear(), last.getUTCMonth() + (t === 'MONTHLY' ? 1 : 3), 1);
  return { from: first, until: isoDay(after) };
}

export function periodStart(t: PeriodType, label: string): string {
  if (t === 'DAILY') {
    const d = new Date(`${label}T00:00:00Z`);
    if (Number.isNaN(d.getTime()) || isoDay(d) !== label) throw badInput(`${label} is not a calendar day`);
    return label;
  }
  if (t === 'MONTHLY') return `${label}-01`;
  const q = Number(label.slice(6));
  return `${label.slice(0, 4)}-${String((q - 1) * 3 + 1).padStart(2, '0')}-01`;
}

/** Parses a request body (or its `parameters`) and turns zod failures into 422s. */
export function parseParameters(input: unknown): TemplateParameters {
  const wrapped =
    input && typeof input === 'object' && 'parameters' in (input as object) ? input : { parameters: input };
  const r = bodySchema.safeParse(wrapped);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first ? first.path.filter((p) => p !== 'parameters').join('.') : '';
    throw badInput(`Invalid parameters${where ? ` at ${where}` : ''}: ${first?.message ?? 'invalid'}`);
  }
  periodBounds(r.data.parameters.period);
  return r.data.parameters;
}
