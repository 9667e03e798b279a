import type { ActivityType } from '../entities/activity.js';
import type { Lead, LeadSource } from '../entities/lead.js';

/**
 * The lead score, 0 to 100, from the lead's data and its activities: the same inputs always give
 * the same score. Recomputed in the transaction of every change to either (docs/decisions/0036-crm.md).
 *
 * - job title: decision makers (owner, founder, chief, C-level, president, VP, director, head) 25,
 *   managers and leads 15, any other title 5;
 * - company named: 10; e-mail: 5; phone: 5;
 * - source: web_form 15, api 10, manual 10, import 5;
 * - activities: meeting 10, call 8, email 4, note 1 each, at most 30 in all.
 */
export const SCORE_RULES = {
  decisionMaker: 25,
  manager: 15,
  anyTitle: 5,
  company: 10,
  email: 5,
  phone: 5,
  source: { web_form: 15, api: 10, manual: 10, import: 5 } satisfies Record<LeadSource, number>,
  activity: { meeting: 10, call: 8, email: 4, note: 1 } satisfies Record<ActivityType, number>,
  activityCap: 30,
} as const;

const DECISION_MAKER = /\b(owner|founder|co-?founder|chief|ceo|cto|cfo|coo|cmo|cio|president|vp|vice[- ]president|director|head|partner|gerente general|due[nñ]o|fundador)\b/i;
const MANAGER = /\b(manager|lead|supervisor|jefe|jefa|gerente|coordinador|coordinadora)\b/i;

export type ActivityCounts = Partial<Record<ActivityType, number>>;

export function scoreLead(lead: Pick<Lead, 'jobTitle' | 'company' | 'email' | 'phone' | 'source'>, activities: ActivityCounts): number {
  let score = 0;
  const title = lead.jobTitle?.trim();
  if (title) score += DECISION_MAKER.test(title) ? SCORE_RULES.decisionMaker : MANAGER.test(title) ? SCORE_RULES.manager : SCORE_RULES.anyTitle;
  if (lead.company?.trim()) score += SCORE_RULES.company;
  if (lead.email) score += SCORE_RULES.email;
  if (lead.phone) score += SCORE_RULES.phone;
  score += SCORE_RULES.source[lead.source];
  let fromActivities = 0;
  for (const [type, count] of Object.entries(activities) as [ActivityType, number][]) fromActivities += SCORE_RULES.activity[type] * count;
  score += Math.min(fromActivities, SCORE_RULES.activityCap);
  return Math.max(0, Math.min(100, score));
}
