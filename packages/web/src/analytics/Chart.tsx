import { useEffect, useRef } from 'react';
import { echarts, type EChartsOption } from './echarts';

export interface ChartClick {
  componentType: string;
  seriesType?: string;
  name?: string;
  value?: unknown;
  data?: unknown;
  dataIndex?: number;
}

/** One ECharts canvas: created on mount, updated on option changes, resized with its box, disposed on unmount. */
export function EChart({ option, label, height = 320, onClick }: { option: EChartsOption; label: string; height?: number; onClick?: (e: ChartClick) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<typeof echarts.init> | null>(null);
  const click = useRef(onClick);
  click.current = onClick;

  useEffect(() => {
    if (!ref.current) return undefined;
    const c = echarts.init(ref.current, undefined, { renderer: 'canvas' });
    chart.current = c;
    // Tests reach the instance to find where a category is drawn (convertToPixel), then click there.
    Object.assign(ref.current, { echartsInstance: c });
    c.on('click', (e) => click.current?.(e as unknown as ChartClick));
    c.on('finished', () => ref.current?.setAttribute('data-rendered', 'true'));
    const observer = new ResizeObserver(() => c.resize());
    observer.observe(ref.current);
    return () => {
      observer.disconnect();
      c.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    // Drawn again (with its animation): not "rendered" until ECharts says it has finished.
    ref.current?.removeAttribute('data-rendered');
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);

  return <div ref={ref} className="echart" role="img" aria-label={label} style={{ height }} />;
}
