import { useState, type FormEvent } from 'react';
import { AGGREGATES, CHART_KINDS, DATA_WIDGET_KINDS, Widget, type Aggregate, type DashboardState, type WidgetKind } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, Field, TextField } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { QueryBar, type Params } from '../analytics/QueryBar';
import { loadGroup } from '../analytics/useRows';

const KIND_LABELS: Record<WidgetKind, string> = {
  bar: 'Bar chart', stackedBar: 'Stacked bar chart', line: 'Line chart', area: 'Area chart', scatter: 'Scatter plot', pie: 'Pie chart',
  histogram: 'Histogram', heatmap: 'Heatmap', kpi: 'KPI number', table: 'Table', pivot: 'Pivot table', text: 'Text (markdown)', image: 'Image', map: 'Map',
};
const TWO_DIMENSIONS: WidgetKind[] = ['stackedBar', 'heatmap', 'line', 'area', 'pivot'];
/** What an analytic-set widget can be drawn as: its template answers rows of (x, series, y). */
const ANALYTIC_KINDS: WidgetKind[] = ['bar', 'stackedBar', 'line', 'area', 'heatmap', 'table', 'pivot'];

/** Add or edit one widget: its kind, its source and query, its texts and the parameters that filter it. */
export function WidgetEditor({ state, initial, defaultDatasetId, newId, onSave, onClose }: {
  state: DashboardState;
  initial?: Widget;
  /** "New dashboard" on a dataset: new widgets start on it. */
  defaultDatasetId?: string;
  newId: (kind: string) => string;
  onSave: (w: Widget) => void;
  onClose: () => void;
}) {
  const [kind, setKind] = useState<WidgetKind>(initial?.kind ?? 'bar');
  const [title, setTitle] = useState(initial?.title ?? '');
  const [datasetId, setDatasetId] = useState(initial?.query?.datasetId ?? (initial ? '' : defaultDatasetId ?? ''));
  const [x, setX] = useState(initial?.query?.dimensions[0] ?? initial?.query?.columns[0] ?? '');
  const [series, setSeries] = useState(initial?.query?.dimensions[1] ?? initial?.query?.columns[1] ?? '');
  const [fn, setFn] = useState<Aggregate>(initial?.query?.measures[0]?.fn ?? 'count');
  const [measureColumn, setMeasureColumn] = useState(initial?.query?.measures[0]?.column ?? '');
  const [columns, setColumns] = useState<string[]>(initial?.query?.columns ?? []);
  const [binWidth, setBinWidth] = useState(String(initial?.query?.binWidth ?? 10));
  const [timeUnit, setTimeUnit] = useState(initial?.query?.timeUnit ?? '');
  const [dateColumn, setDateColumn] = useState(initial?.query?.dateColumn ?? '');
  const [text, setText] = useState(initial?.text ?? '');
  const [imageUrl, setImageUrl] = useState(initial?.imageUrl ?? '');
  const [mapId, setMapId] = useState(initial?.mapId ?? '');
  const [xTitle, setXTitle] = useState(initial?.options.xTitle ?? '');
  const [yTitle, setYTitle] = useState(initial?.options.yTitle ?? '');
  const [numberFormat, setNumberFormat] = useState(initial?.options.numberFormat ?? 'number');
  const [parameterIds, setParameterIds] = useState<string[]>(initial?.parameterIds ?? state.parameters.map((p) => p.id));
  const [error, setError] = useState<string | null>(null);
  const analytic = initial?.analytic;
  const [analyticParams, setAnalyticParams] = useState<Params>(analytic?.parameters ?? {});
  const group = useLoad(() => (analytic ? loadGroup() : Promise.resolve(null)), []);
  const templateSet = group.data?.sets.find((t) => t.id === analytic?.templateId);

  const datasets = useLoad(() => client.records('datasets').list({ limit: 200 }).then((p) => p.items), []);
  const maps = useLoad(() => (kind === 'map' ? client.records('maps').list().then((p) => p.items) : Promise.resolve([])), [kind]);
  const dataset = useLoad(() => (datasetId ? client.datasets.get(datasetId) : Promise.resolve(null)), [datasetId]);
  const cols = dataset.data?.metadata.columns.map((c) => c.name) ?? [];
  const isData = DATA_WIDGET_KINDS.includes(kind) && !analytic;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const measures = kind === 'scatter' || kind === 'table' ? [] : [{ fn, ...(fn === 'count' ? {} : { column: measureColumn }) }];
    const dimensions = kind === 'kpi' || kind === 'scatter' || kind === 'table' ? [] : [x, ...(TWO_DIMENSIONS.includes(kind) && series ? [series] : [])].filter(Boolean);
    const candidate = {
      id: initial?.id ?? newId(kind),
      kind,
      title,
      parameterIds,
      options: { numberFormat, decimals: 0, ...(xTitle ? { xTitle } : {}), ...(yTitle ? { yTitle } : {}) },
      ...(isData && {
        query: {
          datasetId,
          dimensions,
          measures,
          columns: kind === 'table' ? columns : kind === 'scatter' ? [x, series].filter(Boolean) : [],
          ...(kind === 'histogram' && { binWidth: Number(binWidth) }),
          ...((kind === 'line' || kind === 'area') && timeUnit && { timeUnit }),
          ...(kind === 'kpi' && dateColumn && { dateColumn }),
          limit: kind === 'kpi' ? 1 : 1000,
        },
      }),
      ...(analytic && { analytic: { ...analytic, parameters: analyticParams }, ...(initial?.pivot && { pivot: initial.pivot }) }),
      ...(kind === 'text' && { text }),
      ...(kind === 'image' && { imageUrl }),
      ...(kind === 'map' && { mapId }),
    };
    const parsed = Widget.safeParse(candidate);
    if (!parsed.success) return setError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    onSave(parsed.data);
  };

  const columnSelect = (label: string, value: string, set: (v: string) => void, optional = false) => (
    <Field label={label}>
      <select value={value} onChange={(e) => set(e.target.value)} required={!optional}>
        <option value="">{optional ? '(none)' : 'Choose a column'}</option>
        {cols.map((c) => <option key={c} value={c}>{c}</option>)}
      </select>
    </Field>
  );

  return (
    <Dialog title={initial ? 'Edit widget' : 'Add widget'} onClose={onClose} wide>
      <form className="form widget-editor" onSubmit={submit}>
        <Field label="Kind">
          <select value={kind} onChange={(e) => setKind(e.target.value as WidgetKind)}>
            {(analytic ? ANALYTIC_KINDS : (Object.keys(KIND_LABELS) as WidgetKind[])).map((k) => <option key={k} value={k}>{KIND_LABELS[k]}</option>)}
          </select>
        </Field>
        {analytic && (
          <fieldset className="analytic-source">
            <legend>{`Analytic set: ${templateSet?.title ?? analytic.templateId}`}</legend>
            {templateSet && <QueryBar parameters={templateSet.queryParameters} value={analyticParams} onChange={setAnalyticParams} />}
            <ErrorMessage message={group.error} />
          </fieldset>
        )}
        <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} />
        {isData && (
          <Field label="Dataset">
            <select value={datasetId} onChange={(e) => setDatasetId(e.target.value)} required>
              <option value="">Choose a dataset</option>
              {(datasets.data ?? []).map((d) => <option key={d.id} value={d.id}>{d.name}</option>)}
            </select>
          </Field>
        )}
        {isData && datasetId && kind !== 'kpi' && kind !== 'table' && columnSelect(kind === 'scatter' ? 'X column' : kind === 'histogram' ? 'Numeric column' : kind === 'pivot' ? 'Rows' : 'Group by', x, setX)}
        {isData && datasetId && (TWO_DIMENSIONS.includes(kind) || kind === 'scatter') && columnSelect(kind === 'scatter' ? 'Y column' : kind === 'heatmap' ? 'Rows' : kind === 'pivot' ? 'Across (columns)' : 'Series', series, setSeries, kind !== 'scatter' && kind !== 'heatmap')}
        {isData && datasetId && kind !== 'scatter' && kind !== 'table' && (
          <div className="form-row">
            <Field label="Measure">
              <select value={fn} onChange={(e) => setFn(e.target.value as Aggregate)}>
                {AGGREGATES.map((a) => <option key={a} value={a}>{a}</option>)}
              </select>
            </Field>
            {fn !== 'count' && columnSelect('Of column', measureColumn, setMeasureColumn)}
          </div>
        )}
        {kind === 'histogram' && <TextField label="Bin width" type="number" min="0" step="any" value={binWidth} onChange={(e) => setBinWidth(e.target.value)} />}
        {(kind === 'line' || kind === 'area') && (
          <Field label="Dates by">
            <select value={timeUnit} onChange={(e) => setTimeUnit(e.target.value as typeof timeUnit)}>
              <option value="">(as they are)</option>
              {['year', 'month', 'day', 'hour'].map((u) => <option key={u} value={u}>{u}</option>)}
            </select>
          </Field>
        )}
        {kind === 'kpi' && datasetId && columnSelect('Date column (compare with the previous period)', dateColumn, setDateColumn, true)}
        {kind === 'table' && datasetId && (
          <fieldset className="checks">
            <legend>Columns</legend>
            {cols.map((c) => (
              <label key={c}><input type="checkbox" checked={columns.includes(c)} onChange={(e) => setColumns(e.target.checked ? [...columns, c] : columns.filter((x2) => x2 !== c))} /> {c}</label>
            ))}
          </fieldset>
        )}
        {kind === 'text' && <Field label="Text (markdown)"><textarea rows={6} value={text} onChange={(e) => setText(e.target.value)} /></Field>}
        {kind === 'image' && <TextField label="Image URL (https:// or /…)" value={imageUrl} onChange={(e) => setImageUrl(e.target.value)} />}
        {kind === 'map' && (
          <Field label="Map">
            <select value={mapId} onChange={(e) => setMapId(e.target.value)} required>
              <option value="">Choose a saved map</option>
              {(maps.data ?? []).map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
            </select>
          </Field>
        )}
        {CHART_KINDS.includes(kind as never) && (
          <div className="form-row">
            <TextField label="X axis title" value={xTitle} onChange={(e) => setXTitle(e.target.value)} />
            <TextField label="Y axis title" value={yTitle} onChange={(e) => setYTitle(e.target.value)} />
          </div>
        )}
        {(isData || analytic) && (
          <Field label="Number format">
            <select value={numberFormat} onChange={(e) => setNumberFormat(e.target.value as typeof numberFormat)}>
              {['number', 'compact', 'percent', 'currency'].map((f) => <option key={f} value={f}>{f}</option>)}
            </select>
          </Field>
        )}
        {(isData || analytic) && state.parameters.length > 0 && (
          <fieldset className="checks">
            <legend>Filtered by</legend>
            {state.parameters.map((p) => (
              <label key={p.id}><input type="checkbox" checked={parameterIds.includes(p.id)} onChange={(e) => setParameterIds(e.target.checked ? [...parameterIds, p.id] : parameterIds.filter((x2) => x2 !== p.id))} /> {p.label || p.id}</label>
            ))}
          </fieldset>
        )}
        <ErrorMessage message={error ?? dataset.error} />
        <footer className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary">{initial ? 'Apply' : 'Add'}</button>
        </footer>
      </form>
    </Dialog>
  );
}
