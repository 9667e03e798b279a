import { useState, type FormEvent } from 'react';
import { useAuth } from '../auth';
import { useI18n } from '../i18n';
import { ErrorBox, Field, Loaded, Status, useAction, useLoad } from '../ui';

function RoleForm({ role, permissions, onSaved }: { role?: { id: string; name: string; permissions: string[]; built_in: boolean }; permissions: Array<{ name: string; description: string }>; onSaved(): void }) {
  const { client, can } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const locked = role?.built_in || !can('staff.manage');
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = { name: String(form.get('name')).trim(), permissions: form.getAll('permission').map(String) };
    const ok = await action.run(() =>
      role ? client.PATCH('/api/v1/roles/{id}', { params: { path: { id: role.id } }, body }) : client.POST('/api/v1/roles', { body }),
    );
    if (ok) {
      if (!role) event.currentTarget?.reset();
      onSaved();
    }
  };
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={role ? role.name : t('staff.newrole')}>
      <fieldset disabled={locked || action.busy}>
        <legend>{role ? role.name : t('staff.newrole')}</legend>
        {role?.built_in && <p className="note">{t('staff.builtin')}</p>}
        <Field label={t('staff.rolename')}>
          <input name="name" required defaultValue={role?.name} />
        </Field>
        <fieldset className="checks">
          <legend>{t('staff.permissions')}</legend>
          {permissions.map((p) => (
            <label key={p.name} className="check">
              <input type="checkbox" name="permission" value={p.name} defaultChecked={role?.built_in || role?.permissions.includes(p.name)} />
              <span>
                <code>{p.name}</code> <small>{p.description}</small>
              </span>
            </label>
          ))}
        </fieldset>
        {action.error !== undefined && <ErrorBox error={action.error} />}
        {!locked && (
          <button type="submit" className="primary">
            {action.busy ? t('saving') : t('save')}
          </button>
        )}
      </fieldset>
    </form>
  );
}

function Invite({ roles, onSaved }: { roles: Array<{ id: string; name: string }>; onSaved(): void }) {
  const { client } = useAuth();
  const { t } = useI18n();
  const action = useAction();
  const [open, setOpen] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = { email: String(form.get('email')), first_name: String(form.get('first_name')), last_name: String(form.get('last_name')), role_id: String(form.get('role_id')) };
    if (await action.run(() => client.POST('/api/v1/staff', { body }))) {
      setOpen(false);
      onSaved();
    }
  };
  if (!open)
    return (
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        {t('staff.invite')}
      </button>
    );
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={t('staff.invite')}>
      <div className="grid2">
        <Field label={t('customers.email')}>
          <input name="email" type="email" required />
        </Field>
        <Field label={t('staff.role')}>
          <select name="role_id">
            {roles.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('staff.firstname')}>
          <input name="first_name" required />
        </Field>
        <Field label={t('staff.lastname')}>
          <input name="last_name" required />
        </Field>
      </div>
      {action.error !== undefined && <ErrorBox error={action.error} />}
      <div className="buttons">
        <button type="submit" className="primary" disabled={action.busy}>
          {t('staff.invite')}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {t('cancel')}
        </button>
      </div>
    </form>
  );
}

export default function Staff() {
  const { client, can } = useAuth();
  const { t, date } = useI18n();
  const state = useLoad(async () => {
    const [staff, roles, permissions] = await Promise.all([
      client.GET('/api/v1/staff', { params: { query: { limit: 100 } } }),
      client.GET('/api/v1/roles', { params: { query: { limit: 100 } } }),
      client.GET('/api/v1/permissions'),
    ]);
    return { staff: staff.data, roles: roles.data, permissions: permissions.data };
  }, []);
  return (
    <>
      <h1>{t('staff.title')}</h1>
      <Loaded state={state}>
        {(d) => (
          <>
            {can('staff.manage') && <Invite roles={d.roles} onSaved={state.reload} />}
            <div className="table-wrap">
              <table>
                <caption className="sr-only">{t('staff.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('customers.email')}</th>
                    <th scope="col">{t('customers.name')}</th>
                    <th scope="col">{t('staff.role')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {d.staff.map((m) => (
                    <tr key={m.id}>
                      <td>{m.email}</td>
                      <td>
                        {m.first_name} {m.last_name}
                      </td>
                      <td>{d.roles.find((r) => r.id === m.role_id)?.name ?? '—'}</td>
                      <td>
                        <Status value={m.status} />
                      </td>
                      <td>{date(m.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <h2>{t('staff.roles')}</h2>
            {can('staff.manage') && <RoleForm permissions={d.permissions} onSaved={state.reload} />}
            {d.roles.map((r) => (
              <RoleForm key={`${r.id}-${r.updated_at}`} role={r} permissions={d.permissions} onSaved={state.reload} />
            ))}
          </>
        )}
      </Loaded>
    </>
  );
}
