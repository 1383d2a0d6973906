export type { TollgateMetrics, TollgateMetricsOptions } from './metrics.js';
export { createTollgateMetrics, METRIC_NAMES } from './metrics.js';
