export * from './params';
export type { PanelTables, BuiltQuery } from './sql/common';
export * from './run';
export * from './templates/types';
export { FOOT_TRAFFIC_GROUP_ID, TEMPLATE_IDS, type TemplateId, footTrafficTemplates, validateTemplate, templateOf, viewsOfGroup } from './templates/foot-traffic';
export { checkLimits } from './templates/limits';
export { footTrafficGroup, type AnalyticSetGroup } from './templates/group';
export { generateSamplePanel, prng, type SamplePanel, type SamplePanelOptions } from './sample/generate';
