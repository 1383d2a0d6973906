export type { AdaptiveMetrics } from './adaptive.js';
export { ADAPTIVE_METRIC_NAMES, createAdaptiveMetrics } from './adaptive.js';
export type { TollgateMetrics, TollgateMetricsOptions } from './metrics.js';
export { createTollgateMetrics, METRIC_NAMES } from './metrics.js';
