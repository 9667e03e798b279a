/**
 * What the CRM adds to the admin dashboard (`@qhatu/admin`), besides the pipeline board the
 * dashboard itself draws: the leads and the tasks as pages, and the biggest open deals and the
 * open tasks on the home. Plain data, checked when the store starts; the API checks each call.
 */
export const crmAdmin = {
  pages: [
    {
      path: 'leads',
      title: { en: 'Leads', es: 'Prospectos' },
      permission: 'crm.leads.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/crm/leads',
        statuses: ['new', 'working', 'mql', 'sql', 'converted', 'disqualified'],
        columns: [
          { field: 'email', label: { en: 'E-mail', es: 'Correo' } },
          { field: 'first_name', label: { en: 'First name', es: 'Nombre' } },
          { field: 'company', label: { en: 'Company', es: 'Empresa' } },
          { field: 'source', label: { en: 'Source', es: 'Origen' } },
          { field: 'score', label: { en: 'Score', es: 'Puntaje' } },
          { field: 'status', label: { en: 'Status', es: 'Estado' } },
        ],
        actions: [{ label: { en: 'Qualify', es: 'Calificar' }, method: 'POST' as const, path: '/api/v1/crm/leads/{id}/qualify', permission: 'crm.leads.write', when_status: ['new', 'working', 'mql'] }],
      },
    },
    {
      path: 'tasks',
      title: { en: 'Tasks', es: 'Tareas' },
      permission: 'crm.tasks.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/crm/tasks?sort=due_at',
        statuses: ['open', 'completed', 'cancelled'],
        columns: [
          { field: 'title', label: { en: 'Task', es: 'Tarea' } },
          { field: 'priority', label: { en: 'Priority', es: 'Prioridad' } },
          { field: 'due_at', label: { en: 'Due', es: 'Vence' } },
          { field: 'status', label: { en: 'Status', es: 'Estado' } },
        ],
        actions: [
          { label: { en: 'Complete', es: 'Completar' }, method: 'POST' as const, path: '/api/v1/crm/tasks/{id}/complete', permission: 'crm.tasks.write', when_status: ['open'] },
          { label: { en: 'Cancel', es: 'Cancelar' }, method: 'POST' as const, path: '/api/v1/crm/tasks/{id}/cancel', permission: 'crm.tasks.write', when_status: ['open'] },
        ],
      },
    },
  ],
  widgets: [
    {
      zone: 'home' as const,
      title: { en: 'Biggest open deals', es: 'Negocios abiertos más grandes' },
      permission: 'crm.deals.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/crm/deals?filter[status]=open&sort=-amount',
        columns: [
          { field: 'title', label: { en: 'Deal', es: 'Negocio' } },
          { field: 'amount', label: { en: 'Amount (cents)', es: 'Monto (céntimos)' } },
          { field: 'probability', label: { en: 'Probability %', es: 'Probabilidad %' } },
        ],
      },
    },
  ],
};
