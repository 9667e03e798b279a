import { definePlugin } from '@qhatu/core';
import { crmAdmin } from './admin.js';
import { Account } from './entities/account.js';
import { Activity } from './entities/activity.js';
import { Contact } from './entities/contact.js';
import { Deal } from './entities/deal.js';
import { Lead } from './entities/lead.js';
import { Pipeline, Stage } from './entities/pipeline.js';
import { CrmSettings } from './entities/settings.js';
import { Task } from './entities/task.js';
import { dealMachine } from './machines/deal.js';
import { leadMachine } from './machines/lead.js';
import { taskMachine } from './machines/task.js';
import { crmMigration } from './migrations/0001_crm.js';
import { crmSearchMigration } from './migrations/0002_search.js';
import { contactRoutes } from './routes/contacts.js';
import { dealRoutes } from './routes/deals.js';
import { leadRoutes } from './routes/leads.js';
import { pipelineRoutes } from './routes/pipelines.js';
import { settingsRoutes } from './routes/settings.js';
import { taskRoutes } from './routes/tasks.js';
import { Accounts } from './services/accounts.js';
import { Contacts } from './services/contacts.js';
import { LeadConversion } from './services/conversion.js';
import { Deals } from './services/deals.js';
import { CRM_EVENTS } from './services/events.js';
import { Leads } from './services/leads.js';
import { Pipelines } from './services/pipelines.js';
import { CrmReferences } from './services/references.js';
import { CrmSettingsService } from './services/settings.js';
import { Tasks } from './services/tasks.js';

export { Lead, LEAD_SOURCES, LEAD_STATUSES, type LeadSource, type LeadStatus } from './entities/lead.js';
export { Contact } from './entities/contact.js';
export { Account } from './entities/account.js';
export { Pipeline, Stage } from './entities/pipeline.js';
export { Deal, DEAL_STATUSES, type DealStatus } from './entities/deal.js';
export { Task, ENTITY_KINDS, TASK_PRIORITIES, TASK_STATUSES, type EntityKind, type TaskPriority, type TaskStatus } from './entities/task.js';
export { Activity, ACTIVITY_TYPES, type ActivityType } from './entities/activity.js';
export { leadMachine } from './machines/lead.js';
export { dealMachine } from './machines/deal.js';
export { taskMachine } from './machines/task.js';
export { Leads, LeadConversion, Contacts, Accounts, Pipelines, Deals, Tasks, CrmSettingsService };
export { scoreLead, SCORE_RULES } from './services/scoring.js';
export { DEFAULT_STAGES } from './services/pipelines.js';
export { CRM_EVENTS } from './services/events.js';

/** CRM: leads (scored, qualified, converted), contacts, accounts, pipelines, deals, activities, tasks. */
export default definePlugin({
  name: 'crm',
  // Its pages and widgets in the admin dashboard.
  admin: crmAdmin,
  permissions: [
    { name: 'crm.leads.read', description: 'See leads, their activities and the CRM settings' },
    { name: 'crm.leads.write', description: 'Create, change, qualify, disqualify and convert leads; record activities' },
    { name: 'crm.contacts.read', description: 'See contacts and accounts' },
    { name: 'crm.contacts.write', description: 'Create, change and delete contacts and accounts' },
    { name: 'crm.deals.read', description: 'See deals and pipelines' },
    { name: 'crm.deals.write', description: 'Create, change, move, win, lose, reopen and delete deals' },
    { name: 'crm.pipelines.write', description: 'Create, change and delete pipelines and their stages' },
    { name: 'crm.tasks.read', description: 'See tasks' },
    { name: 'crm.tasks.write', description: 'Create, change, complete, cancel and delete tasks' },
    { name: 'crm.settings.write', description: 'Change the CRM settings (the score that makes a lead sql)' },
  ],
  entities: [Lead, Contact, Account, Pipeline, Stage, Deal, Task, Activity, CrmSettings],
  migrations: [crmMigration, crmSearchMigration],
  machines: [leadMachine, dealMachine, taskMachine],
  events: [...CRM_EVENTS],
  register(container) {
    for (const service of [CrmReferences, CrmSettingsService, Pipelines, Tasks, Leads, Contacts, Accounts, Deals, LeadConversion]) container.registerSingleton(service as never);
  },
  routes: async (app, { container }) => {
    await leadRoutes(app, container);
    await contactRoutes(app, container);
    await pipelineRoutes(app, container);
    await dealRoutes(app, container);
    await taskRoutes(app, container);
    await settingsRoutes(app, container);
  },
});
