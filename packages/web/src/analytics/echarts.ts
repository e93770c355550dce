/**
 * ECharts, tree-shaken: the core with only the chart types and components the analytic views draw
 * (analytics-and-admin §2) and the dashboard widgets (pie and scatter besides). Importing 'echarts' itself would pull every chart type into the bundle.
 */
import * as echarts from 'echarts/core';
import { BarChart, HeatmapChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([BarChart, LineChart, HeatmapChart, PieChart, ScatterChart, GridComponent, LegendComponent, TooltipComponent, VisualMapComponent, DataZoomComponent, CanvasRenderer]);

export { echarts };
export type EChartsOption = echarts.EChartsCoreOption;
