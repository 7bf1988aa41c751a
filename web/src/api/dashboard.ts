import { post } from './request';
import type { components } from './schema';

/** The home page's figures; each block only when the caller holds the code of its source. */
export type DashboardSummary = components['schemas']['DashboardSummaryDto'];

export const getDashboardSummary = () => post<DashboardSummary>('/sys/dashboard/summary');
